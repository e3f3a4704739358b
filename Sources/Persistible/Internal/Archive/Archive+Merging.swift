import Foundation

// MARK: - Merging

extension Archive {
    /// Adds the values not yet in the file, after the ones that are, under the lock; writes nothing if none is new.
    ///
    /// A file that does not exist receives `incoming` as written: a single value when `asSingleValue` is set,
    /// else the array without its duplicates. A file that cannot be read is left alone and the error thrown.
    /// Values of an `Identifiable` type replace the stored value with their `id`, as ``mergeByIdentity`` says.
    ///
    /// An append to an array encodes only the new values and splices them into the file's bytes, so its cost is
    /// that of writing the file, not of decoding and encoding every value in it.
    ///
    /// - Returns: How many values were added or replaced.
    func merge(_ incoming: [Value], asSingleValue: Bool) throws -> Int {
        let identity = RecordIdentity<Value>()
        return try withWriteAccess { file in
            guard var state = try takeState(of: file) else {
                let values: [Value]
                var members: Set<Value>?
                if asSingleValue {
                    values = [incoming[0]]
                } else if identity.usesIdentifier {
                    values = Self.applyingInOrder(incoming, identity: identity)
                } else {
                    (values, members) = Self.unique(incoming)
                }
                try write(asSingleValue ? .single(values[0]) : .array(values), to: file, members: members)
                return values.count
            }
            if identity.usesIdentifier {
                return try mergeByIdentity(incoming, into: &state, identity: identity, file: file)
            }
            var members = state.members.take() ?? Set(state.values)
            let additions = incoming.filter { members.insert($0).inserted }
            guard !additions.isEmpty else {
                state.members = members
                keep(state)
                return 0
            }
            try append(additions, to: &state, file: file)
            state.members = members
            // The index lacks the values just appended: the next write that needs it makes it anew.
            state.index = nil
            keep(state)
            return additions.count
        }
    }

    /// Saves values of an `Identifiable` type, one after the other: a value whose `id` is stored replaces the
    /// first stored value with it, where it stands, and the later ones are removed; a value whose `id` is new is
    /// appended. A single-value file whose value is replaced stays a single value.
    ///
    /// When every value is new the file is appended to, as a save by value is.
    ///
    /// - Returns: How many identities were added or had their stored values changed.
    private func mergeByIdentity(
        _ incoming: [Value],
        into state: inout ArchiveState<Value>,
        identity: RecordIdentity<Value>,
        file: AtomicFile
    ) throws -> Int {
        var index = state.index.take() ?? IdentityIndex(state.values, identity: identity)
        let storedCount = state.values.count
        var appended: [Value] = []
        var changed = Set<AnyHashable>()
        var collapsed = Set<AnyHashable>()
        // What each replaced record held when read, so that the write can keep the keys its type does not know.
        var replaced: [Int: Value] = [:]
        for value in incoming {
            let key = identity.of(value)
            guard let position = index[key] else {
                index.note(key, at: storedCount + appended.count)
                appended.append(value)
                changed.insert(key)
                continue
            }
            if position >= storedCount {
                appended[position - storedCount] = value
                continue
            }
            let repeated = index.repeated.contains(key) && !collapsed.contains(key)
            guard state.values[position] != value || repeated else { continue }
            if replaced[position] == nil { replaced[position] = state.values[position] }
            state.values[position] = value
            changed.insert(key)
            if repeated { collapsed.insert(key) }
        }
        guard !changed.isEmpty else {
            state.index = index
            keep(state)
            return 0
        }
        guard changed.count > appended.count else {
            // Only new values: the fast path.
            if state.members != nil {
                for value in appended { state.members?.insert(value) }
            }
            try append(appended, to: &state, file: file)
            state.index = index
            keep(state)
            return changed.count
        }
        // Taken out of the state, so that appending to them copies no record.
        var values = state.values
        state.values = []
        values += appended
        // Where each value came from, known here exactly, so the rewrite need not match records by identity. Only
        // the replaced positions can differ from what was read.
        var sources = (0..<storedCount).map(RecordSource.unchanged)
        for (position, read) in replaced where read != values[position] {
            sources[position] = .changed(position)
        }
        sources += repeatElement(.new, count: appended.count)
        // Shared, not copied: the removals below make a new array.
        let uncollapsed = values
        if !collapsed.isEmpty {
            var seen = Set<AnyHashable>()
            let kept = values.indices.filter { position in
                let key = identity.of(values[position])
                return !collapsed.contains(key) || seen.insert(key).inserted
            }
            values = kept.map { values[$0] }
            sources = kept.map { sources[$0] }
            index = IdentityIndex(values, identity: identity)
        }
        let contents: PersistenceData<Value> = state.isSingleValue && values.count == 1
            ? .single(values[0]) : .array(values)
        try write(
            contents, to: file, index: index, replacing: (state, storedCount, { replaced[$0] ?? uncollapsed[$0] }),
            sources: (sources, replaced)
        )
        return changed.count
    }

    /// Writes `additions`, which the file does not hold, after the values of `state`, and adds them to `state`.
    private func append(_ additions: [Value], to state: inout ArchiveState<Value>, file: AtomicFile) throws {
        let encoded = try encode(array: additions)
        var bytes: Data
        let unchangedPrefix: AtomicFile.UnchangedPrefix?
        do {
            // Scoped, so that `state.values` is the only reference again when it grows below.
            let existing = state.values
            (bytes, unchangedPrefix) = try self.bytes(
                appending: encoded, to: &state, storedCount: existing.count, allValues: existing + additions
            )
        }
        state.identity = try writeWhole(&bytes, to: file, unchangedPrefix: unchangedPrefix)
        state.bytes = bytes
        state.isSingleValue = false
        // Records that needed a default or a migration were written in the current format, encoded from their
        // values: decoding the new bytes need not give those values back, as a type whose encoding loses
        // something shows, so a read after another writer's append decodes the file again.
        if !state.stale.isEmpty { state.valuesAreDecoded = false }
        state.stale = IndexSet()
        state.migrated = IndexSet()
        state.append(additions, decodedFrom: encoded, by: self)
    }

    /// `values` saved one after the other into no file: a value whose `id` came before replaces it there.
    static func applyingInOrder(_ values: [Value], identity: RecordIdentity<Value>) -> [Value] {
        var positions: [AnyHashable: Int] = [:]
        var result: [Value] = []
        result.reserveCapacity(values.count)
        for value in values {
            let key = identity.of(value)
            if let position = positions[key] {
                result[position] = value
            } else {
                positions[key] = result.count
                result.append(value)
            }
        }
        return result
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
