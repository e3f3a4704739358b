#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a write leaves in a file: the records, in order, and where each came from among those read.
struct WritePlan<Record: Hashable> {
    private(set) var records: [Record]
    let identity: RecordIdentity<Record>
    private(set) var index: IdentityIndex?
    /// For a type identified by its whole value, what `add(contentsOf:)` asks: a set builds four times faster.
    private(set) var members: Set<Record>?
    let storedCount: Int
    /// Whether there is a file: with none, a write that leaves no record still makes one.
    private(set) var fileExists = true
    private(set) var storedAsSingleValue = false
    /// Whether the write leaves a single value, rather than an array, when it leaves one record.
    var writesSingleValue = false
    /// Where each record came from; `nil` while nothing but appends happened.
    private(set) var sources: [RecordSource]?
    /// What each changed original held when read, by original position: a rewrite keeps the keys it does not know.
    private(set) var replacedOriginals: [Int: Record] = [:]
    /// The records read as bytes alone, for a write that changes records by identity; `records` then holds only
    /// what the write appends, `storedChanges` what it does to those read, and nothing but ``insert(_:key:)`` and
    /// ``delete(_:)`` may run.
    private(set) var undecoded: UndecodedRecords?
    var storedChanges = StoredChanges<Record>()
    /// Whether a change needed the values of records not decoded: the write is then planned again once the records
    /// with the identities in `storedChanges.wanted` are decoded, or on decoded records.
    private(set) var needsDecodedRecords = false
    /// An identity the write changes that more than one stored record holds, with their positions as read: which of
    /// them it means cannot be told, so the write is refused rather than guessing and dropping the others.
    private(set) var repeatedIdentity: (key: AnyHashable, positions: [Int])?
    /// The values ``delete(_:)`` or a store's `update(_:)` found no record of: a record no version reads may hold
    /// their identity.
    private(set) var notFound: [Record] = []

    init(records: [Record], identity: RecordIdentity<Record> = RecordIdentity()) {
        self.records = records
        self.identity = identity
        storedCount = records.count
    }

    /// A plan of what `state` holds, or of no file, that takes its values: changes to them then copy nothing.
    init(taking state: inout Snapshot<Record>?) where Record: Codable {
        self.init(records: state?.values ?? [])
        (index, members) = (state?.index.take(), state?.members.take())
        fileExists = state != nil
        storedAsSingleValue = state?.isSingleValue ?? false
        writesSingleValue = storedAsSingleValue
        undecoded = state?.undecoded
        state?.values = []
    }

    var hasChanges: Bool { sources != nil || records.count > storedCount || !storedChanges.isEmpty }

    /// Lets go of the records read as bytes alone, once the plan is written.
    mutating func releaseUndecodedRecords() {
        undecoded = nil
    }

    /// Whether the write adds records after those read, left as they were: what a splice can write.
    var onlyAppended: Bool {
        guard let sources else { return records.count > storedCount }
        return sources.count > storedCount && (0..<storedCount).allSatisfy { sources[$0] == .unchanged($0) }
    }

    var recordSources: [RecordSource] {
        sources ?? (0..<records.count).map { $0 < storedCount ? .unchanged($0) : .new }
    }

    /// Moves the records, and what finds them, into `state`, so that it holds the only reference to them.
    mutating func move(into state: inout Snapshot<Record>) where Record: Codable {
        state.values = records
        records = []
        (state.index, state.members) = (index, members)
    }

    // MARK: - Changing

    /// The position in `records` of the first record with this identity; of records read as bytes alone, only
    /// ``insert(_:key:)`` and ``delete(_:)`` know.
    mutating func position(of key: AnyHashable) -> Int? {
        if index == nil { index = IdentityIndex(records, identity: identity) }
        return index?[key]
    }

    /// The positions of the records read as bytes alone that have this identity: `nil` where none has it, or
    /// until they are decoded, which the write then asks for.
    private mutating func storedPositions(of key: AnyHashable) -> [Int]? {
        guard let undecoded, !undecoded.holdsNone(of: key) else { return nil }
        guard let found = storedChanges.found[key] else {
            storedChanges.wanted.append(key)
            needsDecodedRecords = true
            return nil
        }
        return found.isEmpty ? nil : found
    }

    /// Replaces in place the record with the identity of `object`, or appends `object` when its identity is new;
    /// returns whether the records changed. An identity that several records hold is noted in `repeatedIdentity`.
    @discardableResult
    mutating func insert(_ object: Record, key: AnyHashable? = nil) -> Bool {
        let key = key ?? identity.of(object)
        if let stored = storedPositions(of: key) {
            guard stored.count == 1 else {
                refuse(key, storedAt: stored)
                return false
            }
            return storedChanges.replace(at: stored[0], with: object)
        }
        guard let position = needsDecodedRecords ? nil : position(of: key) else {
            if needsDecodedRecords { return false }
            index?.note(key, at: records.count)
            members?.insert(object)
            records.append(object)
            sources?.append(.new)
            return true
        }
        if identity.usesIdentifier, index?.repeated.contains(key) == true {
            refuse(key, storedAt: storedPositions(ofRepeated: key))
            return false
        }
        guard records[position] != object else { return false }
        if sources == nil { sources = recordSources }
        switch sources![position] {
        case .unchanged(let original):
            replacedOriginals[original] = records[position]
            sources![position] = .changed(original)
        case .changed(let original) where replacedOriginals[original] == object:
            // Back to what it held when read: its stored bytes serve again.
            replacedOriginals[original] = nil
            sources![position] = .unchanged(original)
        default:
            break
        }
        records[position] = object
        members = nil
        return true
    }

    mutating func noteNotFound(_ object: Record) {
        notFound.append(object)
    }

    private mutating func refuse(_ key: AnyHashable, storedAt positions: [Int]) {
        if repeatedIdentity == nil { repeatedIdentity = (key, positions) }
    }

    /// Where the records with this identity stood when read.
    private func storedPositions(ofRepeated key: AnyHashable) -> [Int] {
        let sources = recordSources
        return records.indices.filter { identity.of(records[$0]) == key }.compactMap { position in
            switch sources[position] {
            case .unchanged(let original), .changed(let original): original
            case .new: nil
            }
        }
    }

    /// Saves `objects` as `saveToFile()` does; returns how many identities were added or had their records changed.
    mutating func add(contentsOf objects: [Record]) -> Int {
        if identity.usesIdentifier {
            var changed = Set<AnyHashable>()
            for object in objects {
                let key = identity.of(object)
                if insert(object, key: key) { changed.insert(key) }
            }
            return changed.count
        }
        if records.isEmpty {
            let all = Set(objects)
            // Most arrays hold no duplicates: their values become the records without a copy.
            if all.count == objects.count {
                records = objects
                members = all
                index = nil
                sources = sources.map { _ in Array(repeating: .new, count: records.count) }
                return records.count
            }
        }
        if members == nil { members = Set(records) }
        var added = 0
        for object in objects where members!.insert(object).inserted {
            // The index would need the whole value hashed again: made anew by the next write that needs it.
            index = nil
            records.append(object)
            sources?.append(.new)
            added += 1
        }
        return added
    }

    /// Deletes the record with the identity of `object`, every copy of a value stored several times; returns how
    /// many. An `id` that several records hold is noted in `repeatedIdentity`, as ``insert(_:key:)`` notes it.
    @discardableResult
    mutating func delete(_ object: Record) -> Int {
        let key = identity.of(object)
        if let stored = storedPositions(of: key) {
            guard stored.count == 1 else {
                refuse(key, storedAt: stored)
                return 0
            }
            return storedChanges.remove(at: stored[0])
        }
        guard !needsDecodedRecords, let position = position(of: key) else {
            if !needsDecodedRecords { noteNotFound(object) }
            return 0
        }
        guard index?.repeated.contains(key) == true else {
            removeRecords(at: [position])
            return 1
        }
        // Records equal as a whole are one record stored several times, and all go.
        guard !identity.usesIdentifier else {
            refuse(key, storedAt: storedPositions(ofRepeated: key))
            return 0
        }
        let positions = records.indices.filter { identity.of(records[$0]) == key }
        removeRecords(at: positions)
        return positions.count
    }

    /// Deletes the records for which `shouldRemove` is true, whatever other records share their identity.
    mutating func removeAll(where shouldRemove: (Record) throws -> Bool) rethrows -> Int {
        let removed = try records.indices.filter { try shouldRemove(records[$0]) }
        removeRecords(at: removed)
        return removed.count
    }

    /// Removes the records at `positions`, in increasing order, and their sources.
    private mutating func removeRecords(at positions: [Int]) {
        guard !positions.isEmpty else { return }
        if sources == nil { sources = recordSources }
        for position in positions.reversed() {
            records.remove(at: position)
            sources?.remove(at: position)
        }
        (index, members) = (nil, nil)
    }

    mutating func synchronize(with objects: some Sequence<Record>) -> SynchronizeResult<Record> {
        let ordered = Self.inOrder(objects, identity: identity)
        let incoming = IdentityIndex(ordered, identity: identity)
        let stored = index ?? IdentityIndex(records, identity: identity)
        var result = SynchronizeResult<Record>()
        for (position, record) in records.enumerated() {
            let key = identity.of(record)
            // A later record with a stored identity goes, whatever `objects` holds.
            if stored[key] == position, let replacement = incoming[key].map({ ordered[$0] }) {
                if replacement != record { result.updated.append(replacement) }
            } else {
                result.removed.append(record)
            }
        }
        result.added = ordered.filter { stored[identity.of($0)] == nil }
        if ordered != records { replaceRecords(ordered, sources: sources(matching: ordered)) }
        return result
    }

    /// Makes the records `objects`; `sources` says which current record each is or replaces, and `originals` what a
    /// replaced one held when read if not that record: a ``DomainStore``'s stored form, which its conversion drops.
    mutating func replaceRecords(
        _ objects: [Record], sources objectSources: [RecordSource], originals: [Int: Record] = [:]
    ) {
        assert(undecoded == nil, "records read as bytes alone change only by identity")
        let current = recordSources
        sources = zip(objects, objectSources).map { object, source in
            switch source {
            case .unchanged(let position) where records[position] == object:
                return current[position]
            case .unchanged(let position), .changed(let position):
                if case .unchanged(let original) = current[position], replacedOriginals[original] == nil {
                    replacedOriginals[original] = originals[position] ?? records[position]
                }
                return current[position].changed
            case .new:
                return .new
            }
        }
        records = objects
        (index, members) = (nil, nil)
    }

    /// Where each of `values`, which hold each identity once unless the records repeat it, comes from among the
    /// current records: a record equal to it is unchanged, else the first with its identity is changed, else it is new.
    func sources(matching values: [Record]) -> [RecordSource] {
        let stored = index ?? IdentityIndex(records, identity: identity)
        assert(
            stored.repeated.isSuperset(of: IdentityIndex(values, identity: identity).repeated),
            "the identity rule applies before matching"
        )
        // The positions of each identity stored several times: the record that holds a value keeps its bytes.
        var repeated: [AnyHashable: [Int]] = [:]
        if !stored.repeated.isEmpty {
            for position in records.indices {
                let key = identity.of(records[position])
                if stored.repeated.contains(key) { repeated[key, default: []].append(position) }
            }
        }
        return values.map { value in
            let key = identity.of(value)
            guard let first = stored[key] else { return .new }
            let position = repeated[key]?.first { records[$0] == value } ?? first
            return records[position] == value ? .unchanged(position) : .changed(position)
        }
    }

    /// `values` with the identity rule applied: of several with one identity, the last stands where the first stood;
    /// those with an identity in `exempt` all stand.
    static func inOrder(
        _ values: some Sequence<Record>, identity: RecordIdentity<Record>, except exempt: Set<AnyHashable> = []
    ) -> [Record] {
        var positions: [AnyHashable: Int] = [:]
        var result: [Record] = []
        result.reserveCapacity(values.underestimatedCount)
        for value in values {
            let key = identity.of(value)
            if exempt.contains(key) {
                result.append(value)
            } else if let position = positions[key] {
                result[position] = value
            } else {
                positions[key] = result.count
                result.append(value)
            }
        }
        return result
    }
}

/// What a write does to records read as bytes alone (``UndecodedRecords``), by their stored position: the few it
/// replaces or removes, found by identity among those decoded for it.
struct StoredChanges<Record: Hashable> {
    /// The positions of the records with each identity asked about, once decoded; their values, as read.
    var found: [AnyHashable: [Int]] = [:]
    var read: [Int: Record] = [:]
    /// The identities asked about before their records were decoded.
    var wanted: [AnyHashable] = []
    private(set) var replaced: [Int: Record] = [:]
    private(set) var removed: Set<Int> = []

    var isEmpty: Bool { replaced.isEmpty && removed.isEmpty }

    /// Replaces the record at `position` with `object`; returns whether that changed anything.
    mutating func replace(at position: Int, with object: Record) -> Bool {
        let changes = (replaced[position] ?? read[position]) != object
        // Back to what it held when read: its stored bytes serve again.
        replaced[position] = read[position] == object ? nil : object
        return changes
    }

    /// Removes the record at `position`; returns 1, or 0 if it was removed already.
    mutating func remove(at position: Int) -> Int {
        replaced[position] = nil
        return removed.insert(position).inserted ? 1 : 0
    }
}

/// Where a record of a ``WritePlan`` came from: the record read at a position, as read or changed, or a new identity.
enum RecordSource: Equatable {
    case unchanged(Int)
    case changed(Int)
    case new

    var changed: RecordSource {
        if case .unchanged(let original) = self { return .changed(original) }
        return self
    }
}

/// What makes two records the same record: the `id` of an `Identifiable` type, else the whole value; found at run
/// time, so that generic code that does not know the type's `id` honors it too.
struct RecordIdentity<Object: Hashable> {
    /// Found once, since the check for `Identifiable` searches the type's conformances.
    private let identifiedType = Object.self as? any Identifiable.Type

    var usesIdentifier: Bool { identifiedType != nil }

    /// The one way JSON writes the type's `id`, for the kinds that have one.
    var identifierSpelling: IdentifierSpelling? {
        func spelling<Identified: Identifiable>(of _: Identified.Type) -> IdentifierSpelling? {
            IdentifierSpelling(of: Identified.ID.self)
        }
        return identifiedType.flatMap { spelling(of: $0) }
    }

    func of(_ object: Object) -> AnyHashable {
        guard let identifiedType else { return AnyHashable(object) }
        return Self.identifier(of: object, as: identifiedType)
    }

    // Generic, so that the metatype is opened. `Identified` is `Object` itself, so the record is reinterpreted as
    // the very type it is; a checked cast would search conformances each time.
    private static func identifier<Identified: Identifiable>(of object: Object, as _: Identified.Type) -> AnyHashable {
        AnyHashable(unsafeBitCast(object, to: Identified.self).id)
    }

    /// The `id` in a record's bytes, if the type's `ID` is `Decodable`: what is known of a record that does not decode.
    func decodedIdentifier(of record: Data, with decoder: JSONDecoder) -> AnyHashable? {
        func decoded<ID: Decodable & Hashable>(_: ID.Type) -> AnyHashable? {
            (try? decoder.decodeDirectly(IdentifierOnly<ID>.self, from: record)).map { AnyHashable($0.id) }
        }
        func decoded<Identified: Identifiable>(idOf _: Identified.Type) -> AnyHashable? {
            (Identified.ID.self as? any (Decodable & Hashable).Type).flatMap { decoded($0) }
        }
        return identifiedType.flatMap { decoded(idOf: $0) }
    }
}

/// The one way JSON writes an identity of some kinds, so that other bytes written that way are another identity: an
/// integer's digits, or a string of ASCII characters that need no escape. Other kinds, and identities written other
/// ways, are compared once decoded.
enum IdentifierSpelling {
    case integer, plainString

    init?(of key: AnyHashable) {
        self.init(of: type(of: key.base))
    }

    init?(of type: Any.Type) {
        if type is any FixedWidthInteger.Type {
            self = .integer
        } else if type == String.self {
            self = .plainString
        } else {
            return nil
        }
    }

    /// `key` in JSON as `encoder` writes it, if that is the one way.
    static func only(of key: AnyHashable, with encoder: JSONEncoder) -> Data? {
        guard let kind = Self(of: key), let encodable = key.base as? any Encodable,
            let spelling = try? encoder.encode(encodable), kind.isOnly(spelling)
        else { return nil }
        return spelling
    }

    func isOnly(_ spelling: some BidirectionalCollection<UInt8>) -> Bool {
        switch self {
        case .integer:
            let digits = spelling.first == UInt8(ascii: "-") ? spelling.dropFirst() : spelling[...]
            return digits.first.map { $0 != UInt8(ascii: "0") || digits.count == 1 && spelling.count == 1 } == true
                && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        case .plainString:
            let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
            let characters = spelling.dropFirst().dropLast()
            return spelling.count >= 2 && spelling.first == quote && spelling.last == quote
                && characters.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != quote && $0 != backslash }
        }
    }
}

private struct IdentifierOnly<ID: Decodable>: Decodable {
    var id: ID
}

// The one stored property is a metatype: immutable type metadata that the runtime shares between threads anyway.
// It is not declared Sendable only because the protocol `Identifiable` is not constrained to sendable metatypes.
extension RecordIdentity: @unchecked Sendable {}

/// The first position of each identity, and the identities stored more than once: this package never stores two,
/// but a file written by hand or by another tool may, and a change to such an identity must be refused.
struct IdentityIndex {
    private var first: [AnyHashable: Int] = [:]
    private(set) var repeated: Set<AnyHashable> = []

    init<Object>(_ records: [Object], identity: RecordIdentity<Object>) {
        first.reserveCapacity(records.count)
        for (position, record) in records.enumerated() { note(identity.of(record), at: position) }
    }

    subscript(key: AnyHashable) -> Int? { first[key] }

    /// Notes that a record with this identity stands at `position`, after every other.
    mutating func note(_ key: AnyHashable, at position: Int) {
        if first[key] == nil {
            first[key] = position
        } else {
            repeated.insert(key)
        }
    }
}

// MARK: - Writes

extension Archive {
    /// The one read-modify-write: runs `body` under the lock on a plan of the file's records and commits what it
    /// plans, unless it plans nothing or throws. A missing directory is created, unless `creatingDirectory` is false.
    /// With `readingIdentitiesFirst`, `body` runs first on records read for their identities alone, and again if it
    /// needed more or threw: only a body that changes records by identity and does nothing else may ask for it.
    func planWrite<Result>(
        creatingDirectory: Bool = true, remembering: RememberedValues = .decoded, readingIdentitiesFirst: Bool = false,
        _ body: (inout WritePlan<Value>) throws -> Result
    ) throws -> Result {
        try withWriteAccess(creatingDirectory: creatingDirectory) { file in
            if readingIdentitiesFirst, let result = try planWrite(onIdentitiesOf: file, remembering: remembering, body) {
                return result
            }
            var state = try takeState(of: file)
            let unreadable = state?.unreadable ?? RecordPositions()
            var plan = WritePlan(taking: &state)
            var outcome = Swift.Result { try body(&plan) }
            if let (key, positions) = plan.repeatedIdentity, case .success = outcome {
                outcome = .failure(repeatedIdentity(key, at: positions.map(unreadable.positionAmongAll)))
            }
            // A removal or update of what a record no version reads may hold is refused, as a save of it is.
            if !unreadable.isEmpty, !plan.notFound.isEmpty, let state {
                try refuseIdentitiesOfUnreadable(in: state, written: plan.notFound)
            }
            if plan.hasChanges, case .success = outcome {
                try commit(&plan, over: &state, to: file, remembering: remembering)
            } else if !plan.hasChanges, var state {
                // The snapshot still holds what the file holds: kept, with its values back.
                plan.move(into: &state)
                keep(state)
            }
            return try outcome.get()
        }
    }

    /// Runs `body` on the file's records read for their identities alone, then, if it asked about identities they
    /// may hold, once more with the records that have them decoded, and commits what it plans; `nil`, having written
    /// nothing, where it needs every record decoded.
    private func planWrite<Result>(
        onIdentitiesOf file: AtomicFile, remembering: RememberedValues, _ body: (inout WritePlan<Value>) throws -> Result
    ) throws -> Result? {
        // The only reference to the bytes, so that a splice appends to them in place.
        var state = try identitiesOnly(of: file)
        var decoded = StoredChanges<Value>()
        while state != nil {
            var plan = WritePlan(taking: &state)
            plan.storedChanges = decoded
            guard let result = try? body(&plan) else { return nil }
            if let (key, positions) = plan.repeatedIdentity { throw repeatedIdentity(key, at: positions) }
            guard plan.needsDecodedRecords else {
                do {
                    if plan.hasChanges {
                        try commit(&plan, over: &state, to: file, remembering: remembering)
                    } else if let state {
                        // The file is as read: its identities serve the next such write.
                        keep(state)
                    }
                    return result
                } catch is UndecodedRecords.SpliceRefused {
                    return nil
                }
            }
            guard decoded.found.isEmpty,
                let found = storedRecords(withIdentities: plan.storedChanges.wanted, in: &state!)
            else { return nil }
            decoded = found
        }
        return nil
    }

    func repeatedIdentity(_ key: AnyHashable, at positions: [Int]) -> PersistenceError {
        failure(.repeatedIdentity(identity: String(describing: key.base), records: positions))
    }

    /// Runs `change` under the lock with what the file holds (`nil` when there is no file) and makes the file hold
    /// the contents it returns; writes nothing when they are `nil` or what the file holds already.
    func rewrite<Result>(
        _ change: (PersistenceData<Value>?) throws -> (contents: PersistenceData<Value>?, result: Result)
    ) throws -> Result {
        try planWrite { plan in
            let current: PersistenceData<Value>? = !plan.fileExists ? nil
                : plan.storedAsSingleValue ? .single(plan.records[0]) : .array(plan.records)
            let (contents, result) = try change(current)
            guard let contents, contents != current else { return result }
            plan.writesSingleValue = if case .single = contents { true } else { false }
            // A single value replacing a single value is that record changed, whatever identifies the type.
            let sameRecord = plan.writesSingleValue && plan.storedAsSingleValue && !plan.identity.usesIdentifier
            let sources = sameRecord ? [.changed(0)] : plan.sources(matching: contents.values)
            plan.replaceRecords(contents.values, sources: sources)
            return result
        }
    }

    /// Runs `body` under the lock on the single value, or `defaultValue()` when there is no file, and writes the
    /// result as a single value; throws ``PersistenceError/Reason/holdsArray(count:)`` for an array.
    func update(default defaultValue: () throws -> Value, _ body: (inout Value) throws -> Void) throws -> Value {
        var didRead = false
        do {
            return try rewrite { contents in
                didRead = true
                var value: Value = switch contents {
                case nil: try defaultValue()
                case .single(let stored): stored
                case .array(let values): throw failure(.holdsArray(count: values.count))
                }
                try body(&value)
                return (.single(value), value)
            }
        } catch let error as PersistenceError
            where !didRead && error.versionMismatch != nil && evolution.fallback == nil
        {
            // The stored value did not decode: retried once with the default value's keys.
            return try filling(from: defaultValue()).update(default: defaultValue, body)
        }
    }

    /// This archive, uncached, filling what a record still lacks after the type's defaults from `value`'s encoding.
    func filling(from value: Value) throws(PersistenceError) -> Archive {
        Archive(
            url: url, path: path, namedAfter: namedType, encoder: encoder, decoder: decoder, durability: durability,
            lockTimeout: lockTimeout, caches: false, evolution: evolution.filling(from: try encode(value))
        )
    }

    /// Makes the file hold exactly `contents`; returns whether the file was written.
    func overwrite(with contents: PersistenceData<Value>) throws -> Bool {
        try rewrite { current in (contents, contents != current) }
    }

    /// Adds `incoming` as ``WritePlan/add(contentsOf:)`` does, to a missing file as a single value if `asSingleValue`.
    func merge(_ incoming: [Value], asSingleValue: Bool) throws -> Int {
        try planWrite(readingIdentitiesFirst: incoming.count <= UndecodedRecords.fewIdentities) { plan in
            if !plan.fileExists { plan.writesSingleValue = asSingleValue }
            return plan.add(contentsOf: incoming)
        }
    }

    /// Removes the values for which `shouldRemove` is true; returns how many. A file reduced to nothing holds an
    /// empty array; a missing directory is not created.
    func remove(where shouldRemove: (Value) throws -> Bool) throws -> Int {
        try removing(readingIdentitiesFirst: false) { try $0.removeAll(where: shouldRemove) }
    }

    /// Removes the values with the identity of `value`, as ``remove(where:)`` removes; returns how many.
    func remove(_ value: Value) throws -> Int {
        try removing(readingIdentitiesFirst: true) { $0.delete(value) }
    }

    private func removing(
        readingIdentitiesFirst: Bool, _ body: (inout WritePlan<Value>) throws -> Int
    ) throws -> Int {
        do {
            return try planWrite(creatingDirectory: false, readingIdentitiesFirst: readingIdentitiesFirst) { plan in
                plan.writesSingleValue = false
                return try body(&plan)
            }
        } catch let error as PersistenceError where error.isMissingDirectory {
            return 0
        }
    }
}
