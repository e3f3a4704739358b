import Foundation

// MARK: - Merging

extension Archive {
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
            state.stale = IndexSet()
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
