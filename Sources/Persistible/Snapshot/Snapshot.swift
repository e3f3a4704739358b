import Foundation

/// What one version of a file holds: its identity, its bytes and the values they decode to.
///
/// A save needs all of it: the values to answer loads, a set of them for the duplicate check, and the bytes to
/// append to without encoding the existing values again.
struct Snapshot<Value: Hashable> {
    var identity: FileIdentity
    var bytes: Data {
        didSet { recordRanges = nil }
    }
    var values: [Value]
    /// Whether the file holds one value rather than an array of one.
    var isSingleValue: Bool
    /// Whether `values` are what decoding `bytes` gives, rather than the values a save was given, which differ
    /// for a type whose encoding loses something, such as a date's fractions of a second.
    var valuesAreDecoded: Bool
    /// The values as a set, made by the first save that needs it.
    var members: Set<Value>?
    /// Each record's position by identity, made by the first write that needs it.
    var index: IdentityIndex?
    /// The records that are not stored in the current format, because they needed a default or a migration: the
    /// next write stores them anew, so it cannot splice onto bytes that hold them.
    var stale = IndexSet()
    /// The stale records that were migrated from an older type. The others only needed a default: their stored
    /// bytes hold every key they held, so writing them anew carries over the keys their type does not know.
    var migrated = IndexSet()
    /// Where each record lies in `bytes`, once a rewrite has needed to know; forgotten whenever `bytes` change.
    var recordRanges: [Range<Int>]?
    /// The positions, in the file's array, of the records no version of the type reads, which `values` skips and
    /// writes keep as stored (see ``Persistible/archiveSkipsUnreadableRecords``). `stale`, `migrated` and
    /// `recordRanges` count every record of the file, these included; `values` and `index` only the others.
    var unreadable = IndexSet()

    /// How many records the file's array holds, those no version reads included.
    var storedCount: Int { values.count + unreadable.count }

    var contents: PersistenceData<Value> {
        isSingleValue ? .single(values[0]) : .array(values)
    }
}

extension Snapshot where Value: Codable {
    /// Adds values that were just written as `encoded`, after the others.
    ///
    /// A few values are decoded from `encoded`, so that the state holds what a later decode of the file gives,
    /// as a type whose encoding loses something needs; more than ``Archive/decodedAfterWriteLimit`` are added as
    /// given, and the state no longer counts as decoded.
    mutating func append(_ written: [Value], decodedFrom encoded: Data, by archive: Archive<Value>) {
        guard valuesAreDecoded, written.count <= Archive<Value>.decodedAfterWriteLimit,
            let decoded = isSingleValue
                ? (try? archive.decoder.decode(Value.self, from: encoded)).map({ [$0] })
                : try? archive.decoder.decode([Value].self, from: encoded),
            decoded.count == written.count
        else {
            // Shared rather than copied when the state held no values yet, as after a first save.
            if values.isEmpty { values = written } else { values += written }
            valuesAreDecoded = false
            return
        }
        if decoded != written {
            // The set and the index were made from the values as given; they are made again from the decoded ones
            // when needed.
            members = nil
            index = nil
        }
        values += decoded
    }
}

// MARK: - Reading

extension Archive {
    /// What the file holds now, or `nil` if there is no file. Takes no lock: writers rename whole files into place.
    func read() throws(PersistenceError) -> Snapshot<Value>? {
        let cached = cacheKey.flatMap { ArchiveCache.state(for: $0, decoder: decoder, as: Value.self) }
        if let cached, cached.identity == FileIdentity.ofFile(atPath: path) {
            return cached
        }
        let state = try readFile(atPath: path, after: cached)
        if let cacheKey, let state { ArchiveCache.store(state, for: cacheKey, decoder: decoder) }
        return state
    }

    /// The state of `file` for a writer holding its lock: the cached one if the file has not changed since, taken
    /// out of the cache so that it can be changed in place, else read from the file.
    func takeState(of file: AtomicFile) throws(PersistenceError) -> Snapshot<Value>? {
        let cached = cacheKey.flatMap { ArchiveCache.take(for: $0, decoder: decoder, as: Value.self) }
        if let cached, cached.identity == file.identityUnderLock {
            return cached
        }
        return try readFile(atPath: file.path, after: cached)
    }

    /// The state of the file at `path`, read and decoded, or `nil` if there is no file.
    ///
    /// When the file is `previous` with values appended, as a save by another process leaves it, only the appended
    /// values are decoded: the bytes they follow are those `previous` was decoded from, byte for byte.
    private func readFile(
        atPath path: String, after previous: consuming Snapshot<Value>?
    ) throws(PersistenceError) -> Snapshot<Value>? {
        guard let (bytes, identity) = try contents(atPath: path) else { return nil }
        // The values before the appended ones are reused, so they must be what decoding gives.
        if var state = previous, state.valuesAreDecoded, !state.isSingleValue, scansStrictJSON,
            let appended = JSONArraySplice.appendedValues(in: bytes, after: state.bytes),
            let decoded = try? decodeAppended(appended), !decoded.values.isEmpty, decoded.unreadable.isEmpty
        {
            let values = decoded.values
            // Whatever the decoder cannot read is left to the full decode below, which says where it is; so is a
            // comma followed by no value, which is no JSON at all.
            state.identity = identity
            state.bytes = bytes
            let storedCount = state.storedCount
            state.stale.formUnion(IndexSet(decoded.stale.map { $0 + storedCount }))
            state.migrated.formUnion(IndexSet(decoded.migrated.map { $0 + storedCount }))
            state.values += values
            for value in values { state.members?.insert(value) }
            if state.index != nil {
                let identity = RecordIdentity<Value>()
                var position = state.values.count - values.count
                for value in values {
                    state.index?.note(identity.of(value), at: position)
                    position += 1
                }
            }
            return state
        }
        let decoded = try decode(bytes)
        switch decoded.contents {
        case .single(let value):
            return Snapshot(
                identity: identity, bytes: bytes, values: [value], isSingleValue: true, valuesAreDecoded: true,
                stale: decoded.stale, migrated: decoded.migrated
            )
        case .array(let values):
            return Snapshot(
                identity: identity, bytes: bytes, values: values, isSingleValue: false, valuesAreDecoded: true,
                stale: decoded.stale, migrated: decoded.migrated, unreadable: decoded.unreadable
            )
        }
    }

    /// The values of an array that another writer appended, with the same defaults and migrations as a whole file.
    private func decodeAppended(
        _ appended: Data
    ) throws -> (values: [Value], stale: IndexSet, migrated: IndexSet, unreadable: IndexSet) {
        guard !evolution.isEmpty else {
            return (try decoder.decode([Value].self, from: appended), IndexSet(), IndexSet(), IndexSet())
        }
        guard let ranges = JSONScanner.elementRanges(of: appended) else { throw CocoaError(.coderReadCorrupt) }
        return try decodeArray(appended, records: ranges)
    }

    /// The bytes and identity of the file at `path`, or `nil` if there is no file: the one read of a file that
    /// every operation makes.
    func contents(atPath path: String) throws(PersistenceError) -> (Data, FileIdentity)? {
        do {
            return try FileReader.contents(atPath: path)
        } catch {
            throw translate(error) as? PersistenceError ?? failure(.readFailed(operation: "read", errno: EIO))
        }
    }

    /// Remembers the state a writer leaves the file in.
    func keep(_ state: Snapshot<Value>) {
        if let cacheKey { ArchiveCache.store(state, for: cacheKey, decoder: decoder) }
    }
}

/// The last known state of each file in this process, so that an operation need not read and decode what the
/// previous one already knew.
///
/// An entry is used only after checking, on every operation, that the file's identity (device, inode, size,
/// modification time) is still the one the entry was made from; saves check while holding the file's lock. Any
/// save replaces the file with a new inode, so a save by another process, or by another handle in this one,
/// makes the entry stale and the file is read again. When the new file only appends values to the entry's, as
/// another process's save does, only those values are decoded.
///
/// An entry costs about the file's size in bytes, plus the decoded values, plus a hash set of them once a save
/// has needed one. Types opt out with ``Persistible/cachesArchive``; ``Persistible/clearArchiveCache()`` frees an
/// entry.
enum ArchiveCache {
    /// One entry per file and type. The decoder is checked rather than keyed, so that a type that makes a new
    /// decoder for each operation replaces its entry instead of adding one per decoder.
    struct Key: Hashable, Sendable {
        var path: String
        var type: ObjectIdentifier
    }

    private static let entries = Locked<[Key: Entry]>([:])

    /// The key for an archive, or `nil` when its values must not be cached.
    ///
    /// Values of class types are never cached: handing the same instances to every caller would share mutable
    /// state between threads behind their backs.
    static func key<Value>(path: String, type: Value.Type) -> Key? {
        guard !(type is AnyObject.Type) else { return nil }
        return Key(path: path, type: ObjectIdentifier(type))
    }

    /// The cached state for `key`, as `decoder` made it; the caller checks whether the file is still the one it
    /// was made from, or how it has changed since.
    static func state<Value>(for key: Key, decoder: JSONDecoder, as type: Value.Type) -> Snapshot<Value>? {
        entries.withLock { entries in
            guard let entry = entries[key], entry.decoder === decoder else { return nil }
            return entry.state as? Snapshot<Value>
        }
    }

    /// Removes and returns the cached state for `key`, so that the caller holds the only reference to its storage
    /// and can change it in place.
    static func take<Value>(for key: Key, decoder: JSONDecoder, as type: Value.Type) -> Snapshot<Value>? {
        entries.withLock { entries in
            guard let entry = entries.removeValue(forKey: key), entry.decoder === decoder else { return nil }
            return entry.state as? Snapshot<Value>
        }
    }

    static func store<Value>(_ state: Snapshot<Value>, for key: Key, decoder: JSONDecoder) {
        entries.withLock { $0[key] = Entry(state: state, decoder: decoder) }
    }

    static func remove(path: String) {
        entries.withLock { entries in
            for key in entries.keys where key.path == path {
                entries[key] = nil
            }
        }
    }

    static func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}

extension ArchiveCache {
    /// One archive's state, its type erased so that archives of every type share one table.
    ///
    /// `Snapshot` is a value: storing it copies it, reading it out copies it again, and its arrays and data are
    /// copy-on-write. Only values of non-class types are stored (see `key(path:type:)`), so no reference is
    /// shared between the threads that take copies.
    struct Entry: @unchecked Sendable {
        var state: Any
        /// The decoder that made `state`; another decoder may read the same bytes differently.
        var decoder: JSONDecoder
    }
}

// MARK: - Decoding

/// Where a decoded record's value came from.
enum RecordOrigin {
    /// Its stored bytes as they are.
    case stored
    /// Its stored bytes with keys filled from the type's defaults: the stored bytes hold every key they held, keys
    /// a newer version wrote included.
    case filled
    /// An older type's decoding, converted: the stored keys are that type's.
    case migrated
}

/// One record decoded, with where its value came from, or what each version said about it.
enum RecordDecoding<Value> {
    case success((Value, RecordOrigin))
    case failure(VersionMismatch)
}

/// What a file's bytes decode to, and which records are not stored in the current format: those that needed a
/// default or a migration, which the next write stores anew; which of them were migrated; and which records no
/// version reads, skipped (see `Snapshot.unreadable`).
struct DecodedArchive<Value> {
    var contents: PersistenceData<Value>
    var stale = IndexSet()
    var migrated = IndexSet()
    var unreadable = IndexSet()
}

extension Archive {
    /// Decodes a file's bytes as a `Value` or a `[Value]`, whichever they hold, with the type's defaults and
    /// migrations.
    func decode(_ bytes: Data) throws(PersistenceError) -> DecodedArchive<Value> {
        if !evolution.isEmpty, scansStrictJSON, let decoded = try decodeRecords(in: bytes) {
            return decoded
        }
        // The first byte says which to try first, so an array file is decoded once, not first tried as a single
        // value. The other is tried too before giving up: a value's own encoding may be a JSON array, and a file
        // in UTF-16 or UTF-32, which the decoder reads as well, opens with another byte.
        let opensArray = bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        do {
            if opensArray {
                return DecodedArchive(contents: .array(try decoder.decode([Value].self, from: bytes)))
            }
            return DecodedArchive(contents: .single(try decoder.decode(Value.self, from: bytes)))
        } catch {
            if opensArray {
                do {
                    return DecodedArchive(contents: .single(try decoder.decode(Value.self, from: bytes)))
                } catch let single where Self.singleValueErrorMatters(single, arrayError: error) {
                    throw unreadable(single, bytes: bytes, asOneValue: true)
                } catch {}
            }
            if !opensArray, let values = try? decoder.decode([Value].self, from: bytes) {
                return DecodedArchive(contents: .array(values))
            }
            // Only now, so that a file whose records all decode pays nothing for the records that might not.
            if opensArray, evolution.isEmpty, evolution.skipsUnreadable, scansStrictJSON,
                let decoded = try decodeRecords(in: bytes)
            {
                return decoded
            }
            throw unreadable(error, bytes: bytes)
        }
    }

    /// Whether, of the errors that decoding bytes that open with `[` gave as a `Value` and as an array of them,
    /// the first is the one to report.
    ///
    /// It is when the type's own encoding is an array, so that decoding one value read into the file's array
    /// instead of failing on it at once, and the file's first element is not a record at all, being the wrong kind of
    /// value, which is what decoding as an array of records says. For `[1,2]` and a type that decodes three
    /// numbers from an unkeyed container, that is the number missing at `[2]`, not that record 0 is no array.
    /// Otherwise the file is taken for an array of records, as the package writes them, and the record's error
    /// is reported.
    private static func singleValueErrorMatters(_ single: any Error, arrayError: any Error) -> Bool {
        guard case .typeMismatch(_, let context)? = arrayError as? DecodingError,
            context.codingPath.count == 1, context.codingPath[0].intValue == 0
        else { return false }
        if case .typeMismatch(_, let context)? = single as? DecodingError, context.codingPath.isEmpty { return false }
        return single is DecodingError
    }

    /// Decodes record by record, filling defaults and trying migrations; `nil` when the bytes are not strict UTF-8
    /// JSON, which the plain decoder then judges.
    private func decodeRecords(in bytes: Data) throws(PersistenceError) -> DecodedArchive<Value>? {
        if let ranges = JSONScanner.elementRanges(of: bytes) {
            do {
                let (values, stale, migrated, unreadable) = try decodeArray(bytes, records: ranges)
                // A value whose own encoding is an array, rather than records of another version.
                if !unreadable.isEmpty, let single = try? decoder.decode(Value.self, from: bytes) {
                    return DecodedArchive(contents: .single(single))
                }
                return DecodedArchive(
                    contents: .array(values), stale: stale, migrated: migrated, unreadable: unreadable
                )
            } catch {
                // A value whose own encoding is an array.
                do {
                    return DecodedArchive(contents: .single(try decoder.decode(Value.self, from: bytes)))
                } catch let single {
                    do {
                        _ = try decoder.decode([Value].self, from: bytes)
                    } catch let arrayError where Self.singleValueErrorMatters(single, arrayError: arrayError) {
                        throw unreadable(single, bytes: bytes, asOneValue: true)
                    } catch {}
                }
                throw error
            }
        }
        guard let range = JSONScanner.valueRange(of: bytes) else { return nil }
        let defaults = defaultsObject()
        switch decodeRecord(bytes, at: range, defaults: defaults, index: nil) {
        case .success(let (value, origin)):
            return DecodedArchive(
                contents: .single(value), stale: origin == .stored ? IndexSet() : IndexSet(integer: 0),
                migrated: origin == .migrated ? IndexSet(integer: 0) : IndexSet()
            )
        case .failure(let mismatch):
            throw mismatchError(mismatch)
        }
    }

    /// The type's defaults, parsed; `nil` when it declares none, or when they do not encode as an object.
    func defaultsObject() -> DefaultsObject? {
        guard let encoding = try? evolution.encodedDefaults(with: encoder) else { return nil }
        return DefaultsObject(encoding: encoding, keys: KeyReading(decoder))
    }

    /// Decodes the records at `ranges` of `bytes`: all at once when they decode as the current type after their
    /// defaults are filled and none that needed one may be an older type's, else one at a time (see
    /// `decodeRecord(_:at:defaults:index:filled:)`), skipping those no version reads when the type says so.
    func decodeArray(
        _ bytes: Data, records ranges: [Range<Int>]
    ) throws(PersistenceError) -> (values: [Value], stale: IndexSet, migrated: IndexSet, unreadable: IndexSet) {
        var source = bytes
        var filledRanges = ranges
        var stale = IndexSet()
        if let defaults = defaultsObject() {
            (source, filledRanges, stale) = defaults.fill(bytes, records: ranges)
        }
        // A record that needed a default may hold what an older type reads under keys the current one lacks: the
        // records are then read one at a time, so that a migration comes before the default.
        if stale.isEmpty || evolution.migrations.isEmpty {
            let failure: any Error
            do {
                return (try decoder.decode([Value].self, from: source), stale, IndexSet(), IndexSet())
            } catch {
                failure = error
            }
            guard !evolution.migrations.isEmpty || evolution.skipsUnreadable else {
                throw unreadable(failure, bytes: source)
            }
        }
        var values: [Value] = []
        var migrated = IndexSet()
        var unreadable = IndexSet()
        values.reserveCapacity(ranges.count)
        for index in ranges.indices {
            let filled = stale.contains(index) ? source[offsets: filledRanges[index]] : nil
            switch decodeRecord(bytes, at: ranges[index], defaults: nil, index: index, filled: filled) {
            case .success(let (value, origin)):
                values.append(value)
                stale.remove(index)
                if origin != .stored { stale.insert(index) }
                if origin == .migrated { migrated.insert(index) }
            case .failure(let mismatch):
                guard evolution.skipsUnreadable else { throw mismatchError(mismatch) }
                // Only another version's record is skipped: one that is not JSON is damage, which must not vanish.
                let record = ranges[index].shifted(by: bytes.startIndex)
                guard isJSON(Data(bytes[record])) else { throw mismatchError(mismatch, isDamage: true) }
                unreadable.insert(index)
                stale.remove(index)
            }
        }
        return (values, stale, migrated, unreadable)
    }

    /// Decodes one record. One that lacks no key of the defaults is decoded as the current type, then as each older
    /// type; one that lacks a key is decoded as each older type first, then as the current type with its defaults
    /// filled, so that a default never stands in for what the record holds under a key an older type reads. A
    /// default value a settings call was given fills last, only the keys the decoder asks for. Where the value
    /// came from is returned with it.
    ///
    /// - Parameters:
    ///   - defaults: The defaults to fill, unless the caller has filled them.
    ///   - filled: The record with its defaults filled already, when that gained it a key.
    func decodeRecord(
        _ bytes: Data, at range: Range<Int>, defaults: DefaultsObject?, index: Int?, filled: Data? = nil
    ) -> RecordDecoding<Value> {
        let raw = bytes[offsets: range]
        let filled = filled ?? defaults?.filled(raw)
        var current = filled ?? raw
        let prefix = index.map { "[\($0)]" } ?? ""
        var currentFailure: (any Error)?
        if filled == nil {
            do {
                return .success((try decoder.decode(Value.self, from: raw), .stored))
            } catch {
                currentFailure = error
            }
        }
        var attempts: [VersionMismatch.Attempt] = []
        for migration in evolution.migrations {
            do {
                return .success((try migration.decode(raw, decoder), .migrated))
            } catch {
                let (path, detail) = Self.describe(error)
                attempts.append(.init(typeName: migration.sourceTypeName, codingPath: Self.join(prefix, path), detail: detail))
            }
        }
        if let filled {
            do {
                return .success((try decoder.decode(Value.self, from: filled), .filled))
            } catch {
                currentFailure = error
            }
        }
        // One key at a time, as the decoder asks for it: a key it can do without, such as an optional, stays
        // missing, as it would without a default value.
        if let fallback = evolution.fallback.flatMap({ DefaultsObject(encoding: $0, keys: KeyReading(decoder)) }) {
            while case .keyNotFound(let key, let context)? = currentFailure as? DecodingError,
                let next = fallback.only(at: context.codingPath.map(\.stringValue) + [key.stringValue])?
                    .filled(current)
            {
                current = next
                do {
                    return .success((try decoder.decode(Value.self, from: current), .filled))
                } catch {
                    currentFailure = error
                }
            }
        }
        let (path, detail) = Self.describe(currentFailure ?? CocoaError(.coderReadCorrupt))
        attempts.insert(.init(typeName: typeName, codingPath: Self.join(prefix, path), detail: detail), at: 0)
        return .failure(VersionMismatch(record: index, attempts: attempts))
    }

    private static func join(_ prefix: String, _ path: String) -> String {
        guard !prefix.isEmpty, !path.isEmpty else { return prefix + path }
        return path.hasPrefix("[") ? prefix + path : prefix + "." + path
    }
}
