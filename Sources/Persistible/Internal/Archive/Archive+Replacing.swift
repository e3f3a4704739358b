import Foundation

// MARK: - Replacing

extension Archive {
    /// Runs `change` under the lock with what the file holds, `nil` when there is no file, and makes the file hold
    /// the contents it returns, in one atomic write.
    ///
    /// Nothing is written when `change` returns no contents, returns what the file holds already, or throws; a
    /// file that cannot be read is left alone and the error thrown before `change` runs. This is the one
    /// read-modify-write that updates, overwrites and removals share.
    func rewrite<Result>(
        creatingDirectory: Bool = true,
        _ change: (PersistenceData<Value>?) throws -> (contents: PersistenceData<Value>?, result: Result)
    ) throws -> Result {
        try withWriteAccess(creatingDirectory: creatingDirectory) { file in
            let state = try takeState(of: file)
            let contents: PersistenceData<Value>?
            let result: Result
            do {
                (contents, result) = try change(state?.contents)
            } catch {
                if let state { keep(state) }
                throw error
            }
            guard let contents, contents != state?.contents else {
                if let state { keep(state) }
                return result
            }
            // Records the change left as they were keep their stored bytes, and changed ones their unknown keys.
            try write(contents, to: file, replacing: state.map { state in
                (state, state.values.count, { state.values[$0] })
            })
            return result
        }
    }

    /// Writes `contents` as the whole file, under the lock the caller holds, and remembers them as its state.
    ///
    /// - Parameters:
    ///   - index: The index of `contents`' values by identity, when the caller has one.
    ///   - members: The set of `contents`' values, when the caller has one.
    ///   - previous: The file's state as read, how many records it holds, and the value each of them held when
    ///     read: when given, an array keeps the stored bytes of the records it leaves as they were (see
    ///     ``rewriteKeepingUntouched(_:storedCount:records:sources:originals:)``).
    func write(
        _ contents: PersistenceData<Value>,
        to file: AtomicFile,
        index: IdentityIndex? = nil,
        members: Set<Value>? = nil,
        replacing previous: (state: ArchiveState<Value>, count: Int, original: (Int) -> Value)? = nil,
        sources: (records: [RecordSource], originals: [Int: Value])? = nil
    ) throws {
        // Records no version reads stay beside what is written, so the file stays an array.
        var contents = contents
        if let previous, !previous.state.unreadable.isEmpty, case .single(let value) = contents {
            contents = .array([value])
        }
        var bytes: Data
        var unchangedPrefix: AtomicFile.UnchangedPrefix?
        let isSingleValue: Bool
        var ranges: [Range<Int>]?
        var unreadable = IndexSet()
        switch contents {
        case .single(let value):
            bytes = try encode(value)
            // The same record changed keeps the keys its type does not know; another record replacing it does not
            // take them. A file of a type without identity holds its one record, whatever the value, so the keys
            // stay with it. A record migrated from an older type keeps those its older type does not know.
            let identity = RecordIdentity<Value>()
            if let previous, previous.state.isSingleValue, previous.count == 1,
                case let read = previous.original(0), read != value,
                !identity.usesIdentifier || identity.of(read) == identity.of(value)
            {
                bytes = try keepingUnknownKeys(
                    in: bytes, of: previous.state.bytes, readAs: read, migrated: !previous.state.migrated.isEmpty
                )
            }
            isSingleValue = true
        case .array(let values):
            // A caller that knows where each value came from says so; others have them found by identity.
            let rewrite = try previous.flatMap { previous throws(PersistenceError) in
                if let sources {
                    try rewriteKeepingUntouched(
                        previous.state, storedCount: previous.count, records: values, sources: sources.records,
                        originals: sources.originals
                    )
                } else {
                    try rewriteKeepingUntouched(
                        values, replacing: previous.state, storedCount: previous.count, original: previous.original
                    )
                }
            }
            if let previous, let rewrite {
                bytes = rewrite.bytes
                ranges = rewrite.ranges
                unreadable = rewrite.unreadable
                // The records before the first change are copied where they are: a file system that clones
                // shares their blocks rather than writing them again.
                unchangedPrefix = self.unchangedPrefix(of: rewrite, replacing: previous.state)
            } else {
                bytes = try encode(array: values)
            }
            isSingleValue = false
        }
        let identity = try writeWhole(&bytes, to: file, unchangedPrefix: unchangedPrefix)
        var state = ArchiveState<Value>(
            identity: identity, bytes: Data(), values: [], isSingleValue: isSingleValue, valuesAreDecoded: true,
            members: members, index: index
        )
        state.append(contents.values, decodedFrom: bytes, by: self)
        state.bytes = bytes
        state.recordRanges = ranges
        state.unreadable = unreadable
        keep(state)
    }

    /// Reads the single value under the lock, or takes `defaultValue()` when there is no file, runs `body` on it
    /// and writes the result as a single value, unless it is what the file holds; returns the result.
    ///
    /// A file that holds an array throws ``PersistenceError/Reason/holdsArray(count:)`` and is left as it is. A
    /// stored value that lacks a key its type requires takes it from `defaultValue()` (see `filling(from:)`).
    func update(
        default defaultValue: () throws -> Value,
        _ body: (inout Value) throws -> Void
    ) throws -> Value {
        var didRead = false
        do {
            return try rewrite { contents in
                didRead = true
                var value: Value
                switch contents {
                case nil: value = try defaultValue()
                case .single(let stored): value = stored
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

    /// This archive, with what a record still lacks after the type's defaults taken from `value`'s encoding, one
    /// key at a time as the decoder asks for it; uncached, since what it reads depends on `value`. For the default
    /// value of a settings call, encoded only once a stored value does not decode.
    func filling(from value: Value) throws(PersistenceError) -> Archive {
        Archive(
            url: url, path: path, namedAfter: namedType, encoder: encoder, decoder: decoder, durability: durability,
            lockTimeout: lockTimeout, caches: false, evolution: evolution.filling(from: try encode(value))
        )
    }

    /// Makes the file hold exactly `contents`; writes nothing when it does already.
    ///
    /// - Returns: Whether the file was written.
    func overwrite(with contents: PersistenceData<Value>) throws -> Bool {
        try rewrite { current in (contents, contents != current) }
    }
}
