import Foundation

// MARK: - Replacing

extension Archive {
    /// Runs `change` under the lock with what the file holds, `nil` when there is no file, and makes the file hold
    /// the contents it returns, in one atomic write.
    ///
    /// Nothing is written when `change` returns no contents, returns what the file holds already, or throws; a
    /// file that cannot be read is left alone and the error thrown before `change` runs. The write plan matches
    /// each value to the stored record with its identity (see ``WritePlan/replaceAll(with:)``), so records the
    /// change left as they were keep their stored bytes, and changed ones their unknown keys.
    func rewrite<Result>(
        creatingDirectory: Bool = true,
        _ change: (PersistenceData<Value>?) throws -> (contents: PersistenceData<Value>?, result: Result)
    ) throws -> Result {
        try planWrite(creatingDirectory: creatingDirectory) { plan in
            let current: PersistenceData<Value>? = !plan.fileExists ? nil
                : plan.storedAsSingleValue ? .single(plan.records[0]) : .array(plan.records)
            let (contents, result) = try change(current)
            if let contents, contents != current { plan.replaceAll(with: contents) }
            return result
        }
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
