#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// One version of a file, read once: its identity, its bytes, the values they decode to and where each record lies.
struct Snapshot<Value: Codable & Hashable> {
    var identity: FileIdentity
    var bytes: Data { didSet { recordRanges = nil } }
    var values: [Value]
    var isSingleValue = false
    /// Whether `values` are what decoding `bytes` gives rather than what a save was given (a date loses fractions).
    var valuesAreDecoded = true
    var members: Set<Value>?
    var index: IdentityIndex?
    /// The records that needed a default or a migration: the next write stores them anew, so it cannot splice.
    var stale = RecordPositions()
    /// The stale records migrated from an older type; the others hold every key they held, unknown ones included.
    var migrated = RecordPositions()
    /// Where each record lies in `bytes`, once a rewrite needed to know.
    var recordRanges: [Range<Int>]?
    /// The records no version reads, kept as stored (``Persistible/archiveSkipsUnreadableRecords``): `stale`,
    /// `migrated` and `recordRanges` count them, `values` and `index` do not.
    var unreadable = RecordPositions()
    /// Set when the records were read for their identities alone, and `values` holds none of them: such a snapshot
    /// serves only the next such write.
    var undecoded: UndecodedRecords? { didSet { valuesAreDecoded = undecoded == nil } }

    var contents: PersistenceData<Value> { isSingleValue ? .single(values[0]) : .array(values) }

    /// Notes that the last `count` values were just written as `encoded`; for `.decoded`, up to 16 become what
    /// decoding `encoded` gives, as a later read would: decoding costs what encoding does, so only an append's few.
    mutating func noteWritten(_ count: Int, as encoded: Data, decoder: JSONDecoder, remembering: RememberedValues) {
        guard remembering == .decoded, valuesAreDecoded, count <= 16,
            let decoded = isSingleValue
                ? (try? decoder.decodeDirectly(Value.self, from: encoded)).map({ [$0] })
                : try? decoder.decodeDirectly([Value].self, from: encoded),
            decoded.count == count
        else {
            valuesAreDecoded = false
            return
        }
        let written = (values.count - count)..<values.count
        if !values[written].elementsEqual(decoded) {
            (members, index) = (nil, nil)
            values.replaceSubrange(written, with: decoded)
        }
    }
}

/// Positions of records, ascending: what `IndexSet` held, which the smallest Foundation lacks.
struct RecordPositions: Sequence {
    private var sorted: [Int] = []

    init(_ positions: some Sequence<Int> = []) {
        sorted = Set(positions).sorted()
    }

    var isEmpty: Bool { sorted.isEmpty }

    var count: Int { sorted.count }

    var first: Int? { sorted.first }

    func contains(_ position: Int) -> Bool {
        let index = firstIndex(notBelow: position)
        return index < sorted.count && sorted[index] == position
    }

    func count(below position: Int) -> Int {
        firstIndex(notBelow: position)
    }

    /// Where the record at `position` among those not listed here stands among all records.
    func positionAmongAll(_ position: Int) -> Int {
        var result = position
        for listed in sorted where listed <= result { result += 1 }
        return result
    }

    mutating func insert(_ position: Int) {
        if !contains(position) { sorted.insert(position, at: firstIndex(notBelow: position)) }
    }

    func makeIterator() -> IndexingIterator<[Int]> {
        sorted.makeIterator()
    }

    private func firstIndex(notBelow position: Int) -> Int {
        var (low, high) = (0, sorted.count)
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

// MARK: - Reading

extension Archive {
    /// What the file holds now, or `nil` if there is no file. Takes no lock: writers rename whole files into place.
    func read() throws(PersistenceError) -> Snapshot<Value>? {
        let cached = cachedState(taking: false)
        // A write keeps records no version reads; a load throws for them unless the type skips them.
        if let cached, cached.undecoded == nil, cached.unreadable.isEmpty || evolution.skipsUnreadable,
            cached.identity == FileSystem.status(path).map(FileIdentity.init)
        {
            return cached
        }
        let state = try readFile(atPath: path, resolvingLinks: true, after: cached)
        if let state { keep(state) }
        return state
    }

    /// The snapshot of `file` for the holder of its lock, taken out of the cache so that it can change in place.
    func takeState(of file: AtomicFile) throws(PersistenceError) -> Snapshot<Value>? {
        let cached = cachedState(taking: true)
        if let cached, cached.undecoded == nil, cached.identity == file.identityUnderLock { return cached }
        return try readFile(atPath: file.path, after: cached, forWriting: true)
    }

    /// The snapshot this archive's decoder made of the file, to check against it; `taking` leaves the only copy.
    func cachedState(taking: Bool) -> Snapshot<Value>? {
        cacheKey.flatMap { ArchiveCache.state(for: $0, decoder: decoder, taking: taking) }
    }

    func keep(_ state: Snapshot<Value>) {
        guard let cacheKey else { return }
        ArchiveCache.entries.withLock { $0[cacheKey] = ArchiveCache.Entry(state: state, decoder: decoder) }
    }

    /// The bytes and identity of the file at `path`, or `nil` if there is no file: every operation's one read.
    /// `resolvingLinks` for a path whose links are not yet resolved (see ``SymbolicLinks``), which a lock's holder's is.
    func contents(atPath path: String, resolvingLinks: Bool = false) throws(PersistenceError) -> (Data, FileIdentity)? {
        do {
            return try FileReader.contents(atPath: resolvingLinks ? SymbolicLinks.resolve(path).path : path)
        } catch {
            throw translate(error) as? PersistenceError ?? failure(.readFailed(operation: "read", errno: EIO))
        }
    }

    /// The file at `path` decoded, or `nil` if there is none; of `previous` with values appended, only those. Apart
    /// from the cache checks, which it would slow by some 5 µs in the unspecialized generic code that clients run.
    private func readFile(
        atPath path: String, resolvingLinks: Bool = false, after previous: consuming Snapshot<Value>?,
        forWriting: Bool = false
    ) throws(PersistenceError) -> Snapshot<Value>? {
        guard let (bytes, identity) = try contents(atPath: path, resolvingLinks: resolvingLinks) else { return nil }
        // What the decoder cannot read, or a comma followed by no value, is left to the full decode, which says where.
        if var state = previous, state.valuesAreDecoded, !state.isSingleValue, scansStrictJSON,
            let appended = JSONArraySplice.appendedValues(in: bytes, after: state.bytes),
            let decoded = try? decode(appended, identity: identity), !decoded.isSingleValue, !decoded.values.isEmpty,
            decoded.unreadable.isEmpty
        {
            let storedCount = state.values.count + state.unreadable.count
            state.identity = identity
            state.bytes = bytes
            // After every stored position, so each is an append, not a copy of a set that may hold every record.
            for position in decoded.stale { state.stale.insert(position + storedCount) }
            for position in decoded.migrated { state.migrated.insert(position + storedCount) }
            let identity = state.index == nil ? nil : RecordIdentity<Value>()
            for (offset, value) in decoded.values.enumerated() {
                state.members?.insert(value)
                if let identity { state.index?.note(identity.of(value), at: state.values.count + offset) }
            }
            state.values += decoded.values
            return state
        }
        return try decode(bytes, identity: identity, forWriting: forWriting)
    }
}

// MARK: - Looking up

extension Archive where Value: Identifiable {
    /// The record with this `id`, as ``read()`` finds it; in a file not cached, decoding the records whose stored
    /// `id` may be this one. A stored `id` is taken for the record's identity once a decoded record shows it is,
    /// unless the type migrates records, whose identity only their decoding tells. Throws
    /// ``PersistenceError/Reason/repeatedIdentity(identity:records:)`` where more than one record has it.
    func record(withID id: Value.ID) throws(PersistenceError) -> Value? {
        func theOnly(_ found: [(index: Int, value: Value)]) throws(PersistenceError) -> Value? {
            guard found.count < 2 else { throw repeatedIdentity(id, at: found.map(\.index).sorted()) }
            return found.first?.value
        }
        func matches(in state: Snapshot<Value>?) throws(PersistenceError) -> Value? {
            guard let state else { return nil }
            let values = state.contents.values
            return try theOnly(values.indices.filter { values[$0].id == id }.map {
                (state.unreadable.positionAmongAll($0), values[$0])
            })
        }
        if let cached = cachedState(taking: false), cached.undecoded == nil,
            cached.unreadable.isEmpty || evolution.skipsUnreadable,
            cached.identity == FileSystem.status(path).map(FileIdentity.init)
        {
            return try matches(in: cached)
        }
        // Anything the records alone cannot answer, such as damage or a single value, is the whole read's to tell:
        // so is an `id` that JSON writes more than one way, and the identity of a type that migrates records, which
        // only their decoding tells.
        let wholeRead = { () throws(PersistenceError) in try matches(in: read()) }
        guard let (bytes, _) = try contents(atPath: path, resolvingLinks: true) else { return nil }
        let reading = recordReading()
        guard scansStrictJSON, reading.migrations.isEmpty, let kind = IdentifierSpelling(of: id),
            let sought = IdentifierSpelling.only(of: id, with: encoder)
        else { return try wholeRead() }
        // The last records, which decoded show that the stored `id` is the identity, and the others whose stored `id`
        // may be this one: spelled so, or spelled another way than the one, which only decoding tells.
        var last = LastRecords()
        var candidates: [(index: Int, record: JSONScanner.ElementWithMember)] = []
        let isArray = bytes.withUnsafeBytes { buffer in
            sought.withUnsafeBytes { sought in
                JSONScanner.forEachElement(of: bytes, member: "id") { record in
                    let match = record.member.flatMap { member in
                        let stored = UnsafeRawBufferPointer(rebasing: buffer[member])
                        return kind.isOnly(stored) ? stored.elementsEqual(sought) : nil
                    }
                    if match != false { candidates.append((last.count, record)) }
                    last.note(record, match: match)
                }
            }
        }
        guard isArray else { return try wholeRead() }
        func decoded(_ record: JSONScanner.ElementWithMember, at index: Int) -> Value? {
            decodeRecord(bytes, at: record.element, reading: reading, index: index).value
        }
        var found: [(index: Int, value: Value)] = []
        var shownFrom: Int?
        for (index, record, match) in last.fromTheLast {
            guard let value = decoded(record, at: index) else { return try wholeRead() }
            if value.id == id { found.append((index, value)) }
            guard match != nil, let shows = showsIdentity(value.id, in: bytes, at: record) else { continue }
            guard shows else { return try wholeRead() }
            shownFrom = index
            break
        }
        guard let shownFrom else { return last.count == 0 ? nil : try wholeRead() }
        for (index, record) in candidates.reversed() where index < shownFrom {
            guard let value = decoded(record, at: index) else { return try wholeRead() }
            if value.id == id { found.append((index, value)) }
        }
        return try theOnly(found)
    }
}

// MARK: - Identities alone

/// The last few records a scan passed, with whether each one's stored `id` is one sought: decoded from the last back,
/// they show whether the member `id` holds the identity (``Archive/showsIdentity(_:in:at:)``).
struct LastRecords {
    private static let capacity = 8
    private var ring: [(record: JSONScanner.ElementWithMember, match: Bool?)] = []
    private(set) var count = 0

    mutating func note(_ record: JSONScanner.ElementWithMember, match: Bool? = nil) {
        if ring.count < Self.capacity {
            ring.append((record, match))
        } else {
            ring[count % Self.capacity] = (record, match)
        }
        count += 1
    }

    /// The records noted last, from the last back, with their positions.
    var fromTheLast: [(index: Int, record: JSONScanner.ElementWithMember, match: Bool?)] {
        stride(from: count - 1, through: max(0, count - Self.capacity), by: -1).map { index in
            let (record, match) = ring[index % Self.capacity]
            return (index, record, match)
        }
    }
}

extension Archive {
    /// Whether the record at `record`, decoded as identity `key`, shows that its member `id` holds its identity: that
    /// member spells `key` the one way, and no other member spells the same; `nil` where another does, which shows
    /// nothing either way.
    func showsIdentity(
        _ key: AnyHashable, in bytes: Data, at record: (element: Range<Int>, member: Range<Int>?)
    ) -> Bool? {
        guard let spelling = IdentifierSpelling.only(of: key, with: encoder).map(Array.init), let member = record.member
        else { return false }
        return bytes.withUnsafeBytes { buffer in
            guard buffer[member].elementsEqual(spelling) else { return false }
            var alike = 0
            // The members' ranges count from the record's start.
            _ = JSONScanner.forEachMember(in: buffer, at: record.element) { _, value in
                if buffer[value.shifted(by: record.element.lowerBound)].elementsEqual(spelling) { alike += 1 }
            }
            return alike == 1 ? true : nil
        }
    }
}

/// The records of a file read as bytes, each with its stored `id` spelled the one way JSON writes it: all that a
/// write appending a few new identities needs to know of them, and all that a command-line call appending one reads.
struct UndecodedRecords: Sendable {
    /// Of each record's `id` as stored: two that differ are two identities, two alike may be one.
    var hashes: [UInt64]
    /// Where each record read ends, a quarter of the memory of their ranges, which only a change to stored records
    /// needs: filling that memory cost a cold append at 100,000 records 1 ms, 4% of it.
    var recordEnds: [UInt32]
    /// The file's encoder, which spells identities as the records store them.
    var encoder: JSONEncoder

    /// How many identities a save may add to records read this way: ``holdsNone(of:)`` compares each with all.
    static let fewIdentities = 16

    /// Thrown by a commit that cannot splice onto the records: the write is planned again on decoded ones.
    struct SpliceRefused: Error {}

    /// Whether no record has this identity; `false` where only decoding can tell. A few are asked: no index is made.
    func holdsNone(of key: AnyHashable) -> Bool {
        hash(of: key).map { !hashes.contains($0) } ?? false
    }

    /// The hash of this identity spelled the one way, which every record that may have it stores.
    func hash(of key: AnyHashable) -> UInt64? {
        spell(key)?.withUnsafeBytes { fingerprintOf($0) }
    }

    /// The range of each record read in `bytes`, from where each ends; `nil` once a write changed the bytes.
    func recordRanges(in bytes: Data) -> [Range<Int>]? {
        recordEnds.count == hashes.count ? JSONScanner.elementRanges(of: bytes, endingAt: recordEnds) : nil
    }

    /// Notes records with identities `keys`, shown by ``storesIdentities(_:in:)``, as appended by a write, after
    /// which the ends read no longer say where records end.
    mutating func noteAppended(_ keys: [AnyHashable]) {
        hashes += keys.compactMap(hash(of:))
        recordEnds = []
    }

    private func spell(_ key: AnyHashable) -> Data? {
        IdentifierSpelling.only(of: key, with: encoder)
    }

    /// Whether `encoded`, the array of records with identities `keys`, stores each under `id`, as the records read
    /// are taken to: a second proof, from the type's own encoding, that the key holds the identity.
    func storesIdentities(_ keys: [AnyHashable], in encoded: Data) -> Bool {
        guard let records = JSONScanner.elementRanges(of: encoded, member: "id"), records.count == keys.count else {
            return false
        }
        return zip(records, keys).allSatisfy { record, key in
            record.member.map { encoded[offsets: $0] } == spell(key)
        }
    }
}

extension Archive {
    /// The file's records read for their identities alone, where a write that appends new ones needs no more: the
    /// type is `Identifiable` and migrates no records, no snapshot of this version is cached, the file is a strict
    /// JSON array whose every record stores its `id` under that key spelled the one way, and the last record that
    /// decodes has the identity its bytes spell. `nil` otherwise, for the write to decode the records.
    func identitiesOnly(of file: AtomicFile) throws(PersistenceError) -> Snapshot<Value>? {
        let identity = RecordIdentity<Value>()
        // A record that needs a default is stored anew by the next write: only decoding tells which.
        guard identity.usesIdentifier, scansStrictJSON, evolution.isEmpty else { return nil }
        if let cached = cachedState(taking: false), cached.identity == file.identityUnderLock {
            // Taken out, so that the append changes the only copy of the bytes.
            return cached.undecoded == nil ? nil : cachedState(taking: true)
        }
        guard let kind = identity.identifierSpelling, let (bytes, fileIdentity) = try contents(atPath: file.path),
            bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        else { return nil }
        // Each record's stored `id` hashed as the scan passes it, and where the record ends; room for a record each
        // 64 bytes: most are longer.
        var (hashes, ends, last, spelledTheOneWay) = ([UInt64](), [UInt32](), LastRecords(), true)
        hashes.reserveCapacity(bytes.count / 64)
        ends.reserveCapacity(bytes.count / 64)
        let isArray = bytes.count <= UInt32.max && bytes.withUnsafeBytes { buffer in
            JSONScanner.forEachElement(of: bytes, member: "id") { record in
                if spelledTheOneWay, let member = record.member,
                    case let stored = UnsafeRawBufferPointer(rebasing: buffer[member]), kind.isOnly(stored)
                {
                    hashes.append(fingerprintOf(stored))
                } else {
                    spelledTheOneWay = false
                }
                ends.append(UInt32(truncatingIfNeeded: record.element.upperBound))
                last.note(record)
            }
        }
        guard isArray, spelledTheOneWay else { return nil }
        let reading = recordReading()
        // The last records that decode, until one shows where its identity is stored; a record of a newer version
        // stays as stored, and says nothing.
        var shown: AnyHashable?
        for (index, record, _) in last.fromTheLast {
            guard let value = decodeRecord(bytes, at: record.element, reading: reading, index: index).value else {
                continue
            }
            let key = identity.of(value)
            let shows = showsIdentity(key, in: bytes, at: record)
            if shows == true { shown = key }
            if shows != nil { break }
        }
        guard let shown, IdentifierSpelling(of: shown) == kind else { return nil }
        var state = Snapshot<Value>(identity: fileIdentity, bytes: bytes, values: [])
        state.undecoded = UndecodedRecords(hashes: hashes, recordEnds: ends, encoder: encoder)
        return state
    }

    /// The records of `state`, read for their identities alone, whose stored `id` spells one of `keys`, decoded:
    /// where each identity is stored, and what those records hold. `nil` where one of them does not decode, or
    /// decodes to another identity than its bytes spell: only decoding every record tells then.
    func storedRecords(
        withIdentities keys: [AnyHashable], in state: inout Snapshot<Value>
    ) -> StoredChanges<Value>? {
        guard let undecoded = state.undecoded else { return nil }
        // Scanned again only after an append in this process.
        if state.recordRanges == nil {
            state.recordRanges = undecoded.recordRanges(in: state.bytes) ?? JSONScanner.elementRanges(of: state.bytes)
        }
        guard let ranges = state.recordRanges, ranges.count == undecoded.hashes.count else { return nil }
        let identity = RecordIdentity<Value>()
        let reading = recordReading()
        var decoded = StoredChanges<Value>()
        for key in keys where decoded.found[key] == nil {
            guard let hash = undecoded.hash(of: key) else { return nil }
            var positions: [Int] = []
            for position in undecoded.hashes.indices where undecoded.hashes[position] == hash {
                guard let value = decodeRecord(state.bytes, at: ranges[position], reading: reading, index: position).value,
                    identity.of(value) == key
                else { return nil }
                positions.append(position)
                decoded.read[position] = value
            }
            decoded.found[key] = positions
        }
        return decoded
    }
}

// MARK: - Cache

/// Each file's last snapshot, used while the file is that version (<doc:Guarantees#The-in-process-cache>).
enum ArchiveCache {
    /// One entry per file and type; the decoder is checked, not keyed, so one made per operation replaces the entry.
    struct Key: Hashable, Sendable {
        var path: String
        var type: ObjectIdentifier
    }

    /// A snapshot, its type erased so that every type shares one table. Its arrays and data are copy-on-write, values
    /// of class types are never stored (see `key(path:type:)`) and its encoder is `Sendable`, so threads that take
    /// copies share no reference to anything they change.
    struct Entry: @unchecked Sendable {
        var state: Any
        /// The decoder that made `state`; another may read the same bytes differently.
        var decoder: JSONDecoder
    }

    fileprivate static let entries = Locked<[Key: Entry]>([:])

    /// The key for an archive, or `nil` for a class type: the same instances, handed to all threads, share state.
    static func key<Value>(path: String, type: Value.Type) -> Key? {
        guard !(type is AnyObject.Type) else { return nil }
        return Key(path: path, type: ObjectIdentifier(type))
    }

    /// The snapshot `decoder` made for `key`, to check against the file; `taking` removes it, leaving the only copy.
    static func state<Value>(for key: Key, decoder: JSONDecoder, taking: Bool) -> Snapshot<Value>? {
        let entry = entries.withLock { taking ? $0.removeValue(forKey: key) : $0[key] }
        guard let entry, entry.decoder === decoder else { return nil }
        return entry.state as? Snapshot<Value>
    }

    static func remove(path: String) {
        entries.withLock { table in table = table.filter { $0.key.path != path } }
    }
}

// MARK: - Decoding

/// Where a decoded record's value came from: its stored bytes as they are; those bytes with keys filled from the
/// type's defaults, so that they hold every key they held; or an older type's decoding, whose keys they hold.
enum RecordOrigin {
    case stored, filled, migrated
}

/// One record decoded, with where its value came from, or what each version said about it.
enum RecordDecoding<Value> {
    case success((Value, RecordOrigin))
    case failure(VersionMismatch)

    var value: Value? {
        guard case .success(let (value, _)) = self else { return nil }
        return value
    }
}

/// The type's declarations that decoding a record needs, read once a file since each read asks the type anew.
struct RecordReading<Value: Codable> {
    /// The defaults to fill, unless the caller has filled them.
    var defaults: DefaultsObject?
    var migrations: [ArchiveMigration<Value>]
    /// A settings call's default value, which fills what a record still lacks, one key at a time.
    var fallback: DefaultsObject?
}

extension Archive {
    /// Decodes a file's bytes as a `Value` or a `[Value]`, whichever they hold, with the type's evolution. Records
    /// no version reads are kept as stored where the type skips them, and `forWriting`: a write keeps every record it
    /// does not change, read or not (<doc:Guarantees#Files-that-cannot-be-read>).
    func decode(
        _ bytes: Data, identity: FileIdentity, forWriting: Bool = false
    ) throws(PersistenceError) -> Snapshot<Value> {
        if !evolution.isEmpty, scansStrictJSON {
            if let decoded = try decodeRecords(in: bytes, identity: identity, forWriting: forWriting) { return decoded }
            // What the scanner does not read but the decoder does (UTF-16 or UTF-32, a trailing comma) is filled in
            // its strict form; a write encodes such a file whole, once it shows that loses nothing.
            if let strict = StrictJSON.bytes(of: bytes, allowingJSON5: false), strict != bytes,
                var decoded = try decodeRecords(in: strict, identity: identity, forWriting: forWriting)
            {
                decoded.bytes = bytes
                return decoded
            }
        }
        // The first byte says which to try first, so that an array is decoded once. The other is tried too before
        // giving up: a value's own encoding may be an array, and UTF-16 or UTF-32 opens with another byte.
        let opensArray = bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        do {
            if opensArray {
                let values = try decoder.decodeDirectly([Value].self, from: bytes)
                return Snapshot(identity: identity, bytes: bytes, values: values)
            }
            let value = try decoder.decodeDirectly(Value.self, from: bytes)
            return Snapshot(identity: identity, bytes: bytes, values: [value], isSingleValue: true)
        } catch {
            if opensArray, let single = try decodeSingle(bytes, identity: identity, arrayDecode: { throw error }) {
                return single
            }
            if !opensArray, let values = try? decoder.decodeDirectly([Value].self, from: bytes) {
                return Snapshot(identity: identity, bytes: bytes, values: values)
            }
            // Only now, so that a file whose records all decode pays nothing for those that might not.
            if opensArray, evolution.isEmpty, forWriting || evolution.skipsUnreadable, scansStrictJSON,
                let decoded = try decodeRecords(in: bytes, identity: identity, forWriting: forWriting)
            {
                return decoded
            }
            throw unreadable(error, bytes: bytes)
        }
    }

    /// Bytes that open with `[` decoded as one value, of a type encoded as an array, or `nil`; throws that error where
    /// it says more than the array's, whose first element is the wrong kind: for `[1,2]` and three numbers, `[2]`.
    private func decodeSingle(
        _ bytes: Data, identity: FileIdentity, arrayDecode: () throws -> Void
    ) throws(PersistenceError) -> Snapshot<Value>? {
        do {
            let value = try decoder.decodeDirectly(Value.self, from: bytes)
            return Snapshot(identity: identity, bytes: bytes, values: [value], isSingleValue: true)
        } catch {
            guard error is DecodingError,
                case .failure(DecodingError.typeMismatch(_, let context)) = Result(catching: arrayDecode),
                context.codingPath.count == 1, context.codingPath[0].intValue == 0
            else { return nil }
            if case .typeMismatch(_, let context)? = error as? DecodingError, context.codingPath.isEmpty { return nil }
            throw unreadable(error, bytes: bytes, asOneValue: true)
        }
    }

    /// Decodes record by record, filling defaults and trying migrations; `nil` if the bytes are not strict UTF-8 JSON.
    private func decodeRecords(
        in bytes: Data, identity: FileIdentity, forWriting: Bool
    ) throws(PersistenceError) -> Snapshot<Value>? {
        if let ranges = JSONScanner.elementRanges(of: bytes) {
            do {
                let decoded = try decodeArray(bytes, records: ranges, identity: identity, forWriting: forWriting)
                // A value whose own encoding is an array, rather than records of another version.
                if !decoded.unreadable.isEmpty, let single = try? decoder.decodeDirectly(Value.self, from: bytes) {
                    return Snapshot(identity: identity, bytes: bytes, values: [single], isSingleValue: true)
                }
                return decoded
            } catch {
                let arrayDecode = { _ = try decoder.decodeDirectly([Value].self, from: bytes) }
                if let single = try decodeSingle(bytes, identity: identity, arrayDecode: arrayDecode) { return single }
                throw error
            }
        }
        guard let range = JSONScanner.valueRange(of: bytes) else { return nil }
        switch decodeRecord(bytes, at: range, reading: recordReading(), index: nil) {
        case .success(let (value, origin)):
            return Snapshot(
                identity: identity, bytes: bytes, values: [value], isSingleValue: true,
                stale: RecordPositions(origin == .stored ? [] : [0]),
                migrated: RecordPositions(origin == .migrated ? [0] : [])
            )
        case .failure(let mismatch):
            throw mismatchError(mismatch)
        }
    }

    /// The declarations, read once for all the records; `fillingDefaults` is `false` where the caller fills them.
    func recordReading(fillingDefaults: Bool = true) -> RecordReading<Value> {
        let defaults = fillingDefaults ? (try? evolution.encodedDefaults(with: encoder)).flatMap(defaultsObject) : nil
        return RecordReading(
            defaults: defaults, migrations: evolution.migrations, fallback: evolution.fallback.flatMap(defaultsObject)
        )
    }

    private func decodeArray(
        _ bytes: Data, records ranges: [Range<Int>], identity: FileIdentity, forWriting: Bool
    ) throws(PersistenceError) -> Snapshot<Value> {
        var reading = recordReading()
        let (source, filledRanges, lacking) = reading.defaults?.fill(bytes, records: ranges)
            ?? (bytes, ranges, RecordPositions())
        reading.defaults = nil
        let skipsUnreadable = forWriting || evolution.skipsUnreadable
        // A record that needed a default may hold what an older type reads under keys the current one lacks: then
        // the records are read one at a time, so that a migration comes before the default.
        if lacking.isEmpty || reading.migrations.isEmpty {
            do {
                let values = try decoder.decodeDirectly([Value].self, from: source)
                return Snapshot(identity: identity, bytes: bytes, values: values, stale: lacking)
            } catch where reading.migrations.isEmpty && !skipsUnreadable {
                throw unreadable(error, bytes: source)
            } catch {
                // Some records may be another version's, or skipped: read one at a time below.
            }
        }
        var values: [Value] = []
        // Each found in ascending order, so that every insertion is an append.
        var (stale, migrated, unreadable) = (RecordPositions(), RecordPositions(), RecordPositions())
        var firstMismatch: VersionMismatch?
        values.reserveCapacity(ranges.count)
        for index in ranges.indices {
            let filled = lacking.contains(index) ? source[offsets: filledRanges[index]] : nil
            switch decodeRecord(bytes, at: ranges[index], reading: reading, index: index, filled: filled) {
            case .success(let (value, origin)):
                values.append(value)
                if origin != .stored { stale.insert(index) }
                if origin == .migrated { migrated.insert(index) }
            case .failure(let mismatch):
                guard skipsUnreadable else { throw mismatchError(mismatch) }
                // Only another version's record is skipped: one that is not JSON is damage, which must not vanish.
                guard isJSON(Data(bytes[offsets: ranges[index]]), nestedIn: 1) else {
                    throw mismatchError(mismatch, isDamage: true)
                }
                unreadable.insert(index)
                if firstMismatch == nil { firstMismatch = mismatch }
            }
        }
        // A file of which the type reads no record is another type's, or a newer version's throughout: a write does
        // not add to it unless the type asked to skip what it cannot read.
        if values.isEmpty, let firstMismatch, !evolution.skipsUnreadable { throw mismatchError(firstMismatch) }
        return Snapshot(
            identity: identity, bytes: bytes, values: values, stale: stale, migrated: migrated, unreadable: unreadable
        )
    }

    /// Decodes one record and says where its value came from; `filled` is the record with the defaults it lacked.
    /// One that lacks no key of the defaults is decoded as the current type, then as each older type; one that lacks
    /// a key as each older type first, then as the current type filled, so that a default never stands in for what
    /// an older type reads. A settings call's default value fills last, one key at a time.
    func decodeRecord(
        _ bytes: Data, at range: Range<Int>, reading: RecordReading<Value>, index: Int?, filled: Data? = nil
    ) -> RecordDecoding<Value> {
        let raw = bytes[offsets: range]
        let filled = filled ?? reading.defaults?.filled(raw)
        var currentFailure: (any Error)?
        func decodeCurrent(_ record: Data) -> Value? {
            let decoded = Result { try decoder.decodeDirectly(Value.self, from: record) }
            if case .failure(let error) = decoded { currentFailure = error }
            return try? decoded.get()
        }
        func attempt(as typeName: String, failingWith error: any Error) -> VersionMismatch.Attempt {
            let (path, detail) = Self.describe(error)
            let prefix = index.map { "[\($0)]" } ?? ""
            let joined = prefix.isEmpty || path.isEmpty || path.hasPrefix("[") ? prefix + path : prefix + "." + path
            return .init(typeName: typeName, codingPath: joined, detail: detail)
        }
        if filled == nil, let value = decodeCurrent(raw) { return .success((value, .stored)) }
        var attempts: [VersionMismatch.Attempt] = []
        for migration in reading.migrations {
            do {
                return .success((try migration.decode(raw, decoder), .migrated))
            } catch {
                attempts.append(attempt(as: migration.sourceTypeName, failingWith: error))
            }
        }
        var current = filled ?? raw
        if filled != nil, let value = decodeCurrent(current) { return .success((value, .filled)) }
        // One key at a time, as the decoder asks: a key it can do without, such as an optional, stays missing.
        while let fallback = reading.fallback,
            case .keyNotFound(let key, let context)? = currentFailure as? DecodingError,
            let next = fallback.only(at: context.codingPath.map(\.stringValue) + [key.stringValue])?.filled(current)
        {
            current = next
            if let value = decodeCurrent(current) { return .success((value, .filled)) }
        }
        // Set: every way here decoded as the current type last, and failed.
        attempts.insert(attempt(as: typeName, failingWith: currentFailure!), at: 0)
        return .failure(VersionMismatch(record: index, attempts: attempts))
    }
}

/// FNV-1a of an identity's bytes: what tells two stored identities apart before their bytes are compared.
private func fingerprintOf(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
}
