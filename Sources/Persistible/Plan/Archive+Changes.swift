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

// MARK: - Merging

extension Archive {
    /// Adds the values not yet in the file, after the ones that are, under the lock; writes nothing if none is new.
    ///
    /// A file that does not exist receives `incoming` as written: a single value when `asSingleValue` is set,
    /// else the array without its duplicates. A file that cannot be read is left alone and the error thrown.
    /// Values of an `Identifiable` type are saved one after the other: a value whose `id` is stored replaces the
    /// first stored value with it, where it stands, and the later ones are removed; a value whose `id` is new is
    /// appended. A single-value file whose value is replaced stays a single value. (See ``WritePlan/add(_:)``.)
    ///
    /// An append to an array encodes only the new values and splices them into the file's bytes, so its cost is
    /// that of writing the file, not of decoding and encoding every value in it.
    ///
    /// - Returns: How many values were added, or for an `Identifiable` type, how many identities were added or
    ///   had their stored values changed.
    func merge(_ incoming: [Value], asSingleValue: Bool) throws -> Int {
        try planWrite { plan in
            if !plan.fileExists { plan.writesSingleValue = asSingleValue }
            return plan.add(contentsOf: asSingleValue && !plan.fileExists ? [incoming[0]] : incoming)
        }
    }

    /// How many values a save decodes again after writing them, so that what it remembers is what a later decode
    /// of the file gives. Decoding costs about what encoding does, so only an append's few values are decoded:
    /// after a larger save the values are remembered as given, until another writer's save has the file read.
    static var decodedAfterWriteLimit: Int { 16 }
}

// MARK: - Removing

extension Archive {
    /// Removes the values for which `shouldRemove` is true, under the lock, in one atomic write; returns how many.
    ///
    /// A file reduced to nothing holds an empty array. A missing file removes nothing and writes nothing; a missing
    /// directory is not created.
    func remove(where shouldRemove: (Value) throws -> Bool) throws -> Int {
        do {
            // Each record removed on its own, so the plan knows where every kept one came from.
            return try planWrite(creatingDirectory: false) { plan in
                plan.writesSingleValue = false
                return try plan.removeAll(where: shouldRemove)
            }
        } catch let error as PersistenceError where error.isMissingDirectory {
            // No directory, so no file.
            return 0
        }
    }
}
