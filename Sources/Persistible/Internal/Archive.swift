import Foundation

/// One JSON file of `Value`s and the operations on it: read without a lock, change under the lock, write atomically.
///
/// The public API and the stores describe *what* to save; this type is the one place that decides *how*.
struct Archive<Value: Codable & Hashable> {
    let url: URL
    let typeName: String
    let encoder: JSONEncoder
    let decoder: JSONDecoder
    let durability: Durability
    /// Where this archive's state is cached, or `nil` if it is not.
    let cacheKey: ArchiveCache.Key?

    init(
        url: URL,
        typeName: String,
        encoder: JSONEncoder,
        decoder: JSONDecoder,
        durability: Durability,
        caches: Bool
    ) {
        self.url = url
        self.typeName = typeName
        self.encoder = encoder
        self.decoder = decoder
        self.durability = durability
        cacheKey = caches ? ArchiveCache.key(path: url.path, type: Value.self) : nil
    }

    func failure(_ reason: PersistenceError.Reason) -> PersistenceError {
        PersistenceError(reason, url: url, typeName: typeName)
    }

    /// Turns what the internals threw into the public error; any other error, such as one a store's write block
    /// threw, passes through as it is.
    func translate(_ error: any Error) -> any Error {
        switch error {
        case let error as SystemError: return failure(error.reason)
        default: return error
        }
    }

    // MARK: - Reading

    /// What the file holds now, or `nil` if there is no file. Takes no lock: writers rename whole files into place.
    func read() throws(PersistenceError) -> ArchiveState<Value>? {
        let cached = cacheKey.flatMap { ArchiveCache.state(for: $0, decoder: decoder, as: Value.self) }
        if let cached, cached.identity == FileIdentity.ofFile(atPath: url.path) {
            return cached
        }
        let state = try readFile(atPath: url.path, after: cached)
        if let cacheKey, let state { ArchiveCache.store(state, for: cacheKey, decoder: decoder) }
        return state
    }

    /// The state of the file at `path` for a writer holding the lock: the cached one if the file has not changed
    /// since, taken out of the cache so that it can be changed in place, else read from the file.
    func takeState(atPath path: String) throws(PersistenceError) -> ArchiveState<Value>? {
        let cached = cacheKey.flatMap { ArchiveCache.take(for: $0, decoder: decoder, as: Value.self) }
        if let cached, cached.identity == FileIdentity.ofFile(atPath: path) {
            return cached
        }
        return try readFile(atPath: path, after: cached)
    }

    /// The state of the file at `path`, read and decoded, or `nil` if there is no file.
    ///
    /// When the file is `previous` with values appended, as a save by another process leaves it, only the appended
    /// values are decoded: the bytes they follow are those `previous` was decoded from, byte for byte.
    private func readFile(
        atPath path: String, after previous: consuming ArchiveState<Value>?
    ) throws(PersistenceError) -> ArchiveState<Value>? {
        let bytes: Data
        let identity: FileIdentity
        do {
            guard let file = try FileReader.contents(atPath: path) else { return nil }
            (bytes, identity) = file
        } catch let error as SystemError {
            throw failure(error.reason)
        } catch {
            throw failure(.readFailed(operation: "read", errno: EIO))
        }
        // The values before the appended ones are reused, so they must be what decoding gives.
        if var state = previous, state.valuesAreDecoded, !state.isSingleValue, splices,
            let appended = JSONArraySplice.appendedValues(in: bytes, after: state.bytes),
            let values = try? decoder.decode([Value].self, from: appended), !values.isEmpty
        {
            // Whatever the decoder cannot read is left to the full decode below, which says where it is; so is a
            // comma followed by no value, which is no JSON at all.
            state.identity = identity
            state.bytes = bytes
            state.values += values
            for value in values { state.members?.insert(value) }
            state.positions = nil
            return state
        }
        switch try decode(bytes) {
        case .single(let value):
            return ArchiveState(
                identity: identity, bytes: bytes, values: [value], isSingleValue: true, valuesAreDecoded: true
            )
        case .array(let values):
            return ArchiveState(
                identity: identity, bytes: bytes, values: values, isSingleValue: false, valuesAreDecoded: true
            )
        }
    }

    /// Remembers the state a writer leaves the file in.
    func keep(_ state: ArchiveState<Value>) {
        if let cacheKey { ArchiveCache.store(state, for: cacheKey, decoder: decoder) }
    }

    /// Decodes a file's bytes as a `Value` or a `[Value]`, whichever they hold.
    func decode(_ bytes: Data) throws(PersistenceError) -> PersistenceData<Value> {
        // The first byte says which to try first, so an array file is decoded once, not first tried as a single
        // value. The other is tried too before giving up: a value's own encoding may be a JSON array, and a file
        // in UTF-16 or UTF-32, which the decoder reads as well, opens with another byte.
        let opensArray = bytes.first(where: { !isJSONWhitespace($0) }) == UInt8(ascii: "[")
        do {
            if opensArray {
                return .array(try decoder.decode([Value].self, from: bytes))
            }
            return .single(try decoder.decode(Value.self, from: bytes))
        } catch {
            if opensArray, let single = try? decoder.decode(Value.self, from: bytes) {
                return .single(single)
            }
            if !opensArray, let values = try? decoder.decode([Value].self, from: bytes) {
                return .array(values)
            }
            throw unreadable(error, bytes: bytes)
        }
    }

    private func unreadable(_ error: any Error, bytes: Data) -> PersistenceError {
        guard !bytes.allSatisfy(isJSONWhitespace) else {
            return failure(.unreadable(codingPath: "", detail: "The file is empty."))
        }
        guard let error = error as? DecodingError else {
            return failure(.unreadable(codingPath: "", detail: String(describing: error)))
        }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default:
            return failure(.unreadable(codingPath: "", detail: String(describing: error)))
        }
        var path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        if path.hasPrefix(".") { path.removeFirst() }
        var detail = context.debugDescription
        if case .keyNotFound(let key, _) = error { detail = "No value for the key '\(key.stringValue)'." }
        if let underlying = context.underlyingError { detail += " (\(underlying.localizedDescription))" }
        return failure(.unreadable(codingPath: path, detail: detail))
    }

    private static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context): return context.debugDescription
        @unknown default: return String(describing: error)
        }
    }

    // MARK: - Writing

    /// Runs `body` holding the file's lock, with the file to write; creates the directory if needed.
    ///
    /// The file's symbolic links are resolved first, so the lock sits beside the real file and every link to it
    /// shares that lock.
    func withWriteAccess<Result>(
        creatingDirectory: Bool = true,
        _ body: (AtomicFile) throws -> Result
    ) throws -> Result {
        do {
            let file = try AtomicFile(resolving: url.path)
            let lock = FileLock(protecting: file.path)
            do {
                return try lock.withLock {
                    file.removeAbandonedTemporaries()
                    return try body(file)
                }
            } catch let error as SystemError where error.phase == .lock && error.code == ENOENT && creatingDirectory {
                try Directory.create(atPath: (file.path as NSString).deletingLastPathComponent, durability: durability)
                return try lock.withLock { try body(file) }
            }
        } catch {
            throw translate(error)
        }
    }

    /// Encodes a value in the file's format.
    func encode<T: Encodable>(_ value: T) throws(PersistenceError) -> Data {
        do {
            return try encoder.encode(value)
        } catch let error as EncodingError {
            throw failure(.encodingFailed(detail: Self.describe(error)))
        } catch {
            throw failure(.encodingFailed(detail: String(describing: error)))
        }
    }

    /// How many values `encode(array:)` encodes at a time.
    static var sliceLength: Int { 4096 }

    /// Encodes an array in the file's format.
    ///
    /// A long array is encoded a slice at a time and the slices spliced together. The bytes are those of encoding it
    /// whole, but the encoder's tree of intermediate values stays small: measured on 100,000 records, 10% faster.
    func encode(array values: [Value]) throws(PersistenceError) -> Data {
        let length = Self.sliceLength
        guard values.count > length else { return try encode(values) }
        let splice = JSONArraySplice(encoder: encoder)
        var bytes = try encode(Array(values[..<length]))
        var start = length
        while start < values.endIndex {
            let end = min(start + length, values.endIndex)
            guard splice.append(try encode(Array(values[start..<end])), to: &bytes) else {
                // A format the splice does not know: encode it whole.
                return try encode(values)
            }
            start = end
        }
        return bytes
    }

    /// Adds the values not yet in the file, after the ones that are, under the lock; writes nothing if none is new.
    ///
    /// A file that does not exist receives `incoming` as written: a single value when `asSingleValue` is set,
    /// else the array without its duplicates. A file that cannot be read is left alone and the error thrown.
    ///
    /// An append to an array encodes only the new values and splices them into the file's bytes, so its cost is
    /// that of writing the file, not of decoding and encoding every value in it.
    func merge(_ incoming: [Value], asSingleValue: Bool) throws {
        try withWriteAccess { file in
            guard var state = try takeState(atPath: file.path) else {
                let (values, members) = asSingleValue ? ([incoming[0]], [incoming[0]]) : Self.unique(incoming)
                let bytes = asSingleValue ? try encode(values[0]) : try encode(array: values)
                let identity = try file.write(bytes, durability: durability)
                var state = ArchiveState(
                    identity: identity, bytes: Data(), values: [], isSingleValue: asSingleValue,
                    valuesAreDecoded: true, members: members
                )
                state.append(values, decodedFrom: bytes, by: self)
                state.bytes = bytes
                keep(state)
                return
            }
            var members = state.members.take() ?? Set(state.values)
            let additions = incoming.filter { members.insert($0).inserted }
            guard !additions.isEmpty else {
                state.members = members
                keep(state)
                return
            }
            let encoded = try encode(array: additions)
            let bytes: Data
            do {
                // Scoped, so that `state.values` is the only reference again when it grows below.
                let existing = state.values
                bytes = try self.bytes(appending: encoded, to: &state, allValues: existing + additions)
            }
            state.identity = try file.write(bytes, durability: durability)
            state.bytes = bytes
            state.isSingleValue = false
            state.members = members
            state.append(additions, decodedFrom: encoded, by: self)
            // Positions are by a store's identity, which a save by value does not know: a store makes them anew.
            state.positions = nil
            keep(state)
        }
    }

    /// How many values a save decodes again after writing them, so that what it remembers is what a later decode
    /// of the file gives. Decoding costs about what encoding does, so only an append's few values are decoded:
    /// after a larger save the values are remembered as given, until another writer's save has the file read.
    static var decodedAfterWriteLimit: Int { 16 }

    /// Whether appends splice bytes and reads decode only what another writer appended. Both assume strict JSON:
    /// with JSON5, a comment can sit where they look for the end of the last value.
    var splices: Bool {
        !decoder.allowsJSON5
    }

    /// The file's bytes once the values encoded in `additions` follow the values of `state`: spliced into
    /// `state.bytes` when the file holds an array, so existing values are not encoded again, else `allValues`
    /// encoded whole.
    ///
    /// It takes `state.bytes`, so that the splice changes the only copy in place instead of copying the file.
    func bytes(
        appending additions: Data,
        to state: inout ArchiveState<Value>,
        allValues: @autoclosure () -> [Value]
    ) throws(PersistenceError) -> Data {
        var bytes = Data()
        swap(&bytes, &state.bytes)
        if !state.isSingleValue, splices, JSONArraySplice(encoder: encoder).append(additions, to: &bytes) {
            return bytes
        }
        return try encode(array: allValues())
    }

    /// Removes the file under the lock; a missing file is not an error.
    func delete() throws {
        do {
            try withWriteAccess(creatingDirectory: false) { file in
                ArchiveCache.remove(path: url.path)
                try file.remove(durability: durability)
            }
        } catch let error as PersistenceError where error.reason == .lockFailed(operation: "open lock file", errno: ENOENT) {
            // No directory, so no file.
        }
    }

    /// The values without their duplicates, in first-seen order, and the set of them.
    static func unique(_ values: [Value]) -> ([Value], Set<Value>) {
        var seen = Set<Value>(minimumCapacity: values.count)
        // Most arrays have no duplicates: only the first one found makes a new array. Indices rather than an
        // iterator keep this generic loop free of per-element metadata lookups.
        var index = values.startIndex
        while index < values.endIndex {
            if !seen.insert(values[index]).inserted {
                var unique = Array(values[..<index])
                unique.reserveCapacity(values.count - 1)
                index += 1
                while index < values.endIndex {
                    if seen.insert(values[index]).inserted { unique.append(values[index]) }
                    index += 1
                }
                return (unique, seen)
            }
            index += 1
        }
        return (values, seen)
    }
}
