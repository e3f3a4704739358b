import Foundation

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

    /// Remembers the state a writer leaves the file in.
    func keep(_ state: Snapshot<Value>) {
        if let cacheKey { ArchiveCache.store(state, for: cacheKey, decoder: decoder) }
    }
}
