import Foundation

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
