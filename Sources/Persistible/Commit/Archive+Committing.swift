import Foundation

// MARK: - Committing

/// What a write remembers of the records it wrote.
enum RememberedValues {
    /// What decoding the file gives, for the article API: the few records of a small write are decoded again, so
    /// that a type whose encoding loses something, such as a date's fractions of a second, loads as a new process
    /// would; more are remembered as given, until another writer's save has the file read.
    case decoded
    /// The records as given: a store keeps its own values.
    case asGiven
}

extension Archive {
    /// Runs `body` under the lock on a plan of what the file holds, and commits what it plans, in one atomic
    /// write: the one read-modify-write that every save, update, overwrite, removal and store write shares.
    ///
    /// Nothing is written when the plan changes nothing or `body` throws. A file that cannot be read is left alone
    /// and the error thrown before `body` runs.
    ///
    /// - Parameters:
    ///   - creatingDirectory: Whether a missing directory is created; when not, its absence throws.
    ///   - remembering: What the cache keeps of the records written.
    ///   - body: Changes the plan, which starts from the file's records: none when there is no file.
    func planWrite<Result>(
        creatingDirectory: Bool = true,
        remembering: RememberedValues = .decoded,
        _ body: (inout WritePlan<Value>) throws -> Result
    ) throws -> Result {
        try withWriteAccess(creatingDirectory: creatingDirectory) { file in
            var state = try takeState(of: file)
            var plan = WritePlan(
                records: state?.values ?? [], index: state?.index.take(), members: state?.members.take(),
                fileExists: state != nil, storedAsSingleValue: state?.isSingleValue ?? false, writesSingleValue: state?.isSingleValue ?? false
            )
            // The plan now holds the only reference to the values, so changes to it copy nothing.
            state?.values = []
            let result: Result
            do {
                result = try body(&plan)
            } catch {
                if var state, !plan.hasChanges { keep(restoring: &plan, in: &state) }
                throw error
            }
            guard plan.hasChanges else {
                if var state { keep(restoring: &plan, in: &state) }
                return result
            }
            try commit(&plan, over: &state, to: file, remembering: remembering)
            return result
        }
    }

    /// Keeps `state` with the records of `plan`, which changed nothing, back in it.
    private func keep(restoring plan: inout WritePlan<Value>, in state: inout Snapshot<Value>) {
        state.values = plan.takeRecords()
        state.index = plan.index
        state.members = plan.members
        keep(state)
    }

    /// Makes the file, whose state as read is `stored` (`nil` when there is none), hold what `plan` says, under the
    /// lock the caller holds, and remembers what it wrote.
    ///
    /// A plan that only appends to an array whose records are all in the current format has the new records
    /// encoded and spliced on, so its cost is that of writing the file, not of encoding every record. Any other
    /// rewrites the file keeping the stored bytes of the records the plan did not change, the keys its type does
    /// not know of each one it changed, and the records no version reads (see
    /// ``rewriteKeepingUntouched(_:storedCount:records:sources:originals:)``). A plan that leaves one record and
    /// asks for a single value writes one, which keeps the keys of the single value it changes.
    func commit(
        _ plan: inout WritePlan<Value>, over stored: inout Snapshot<Value>?, to file: AtomicFile,
        remembering: RememberedValues
    ) throws {
        // Taken out of the optional, so that the state holds the only reference to the file's bytes.
        guard var state = stored.take() else {
            let single = plan.writesSingleValue && plan.records.count == 1
            var bytes = single ? try encode(plan.records[0]) : try encode(array: plan.records)
            let identity = try writeWhole(&bytes, to: file, unchangedPrefix: nil)
            remember(&plan, in: identity, bytes: bytes, isSingleValue: single, remembering: remembering)
            return
        }
        // A plan that asks for a single value, as an overwrite with one value does, is written as one even over an
        // empty array.
        if state.stale.isEmpty, !state.isSingleValue, !plan.writesSingleValue, plan.onlyAppended,
            plan.records.count > plan.storedCount,
            try append(to: &state, from: &plan, file: file, remembering: remembering)
        {
            return
        }
        let single = plan.writesSingleValue && plan.records.count == 1 && state.unreadable.isEmpty
        var bytes: Data
        var unchangedPrefix: AtomicFile.UnchangedPrefix?
        var rewrite: Rewrite?
        if single {
            let value = plan.records[0]
            let source = plan.recordSources[0]
            // Read as the single value: one the write left as it was, or the one it changed.
            var read: Value?
            if state.isSingleValue, plan.storedCount == 1 {
                read = source == .unchanged(0) ? value : source == .changed(0) ? plan.replacedOriginals[0] : nil
            }
            if read != nil, source == .unchanged(0), state.stale.isEmpty {
                bytes = state.bytes
            } else if let read {
                // The same record changed keeps the keys its type does not know; another record replacing it does
                // not take them. A record migrated from an older type keeps those its older type does not know.
                bytes = try keepingUnknownKeys(
                    in: try encode(value), of: state.bytes, readAs: read, migrated: !state.migrated.isEmpty
                )
            } else {
                bytes = try encode(value)
            }
        } else if let kept = try rewriteKeepingUntouched(
            state, storedCount: plan.storedCount, records: plan.records, sources: plan.recordSources,
            originals: plan.replacedOriginals
        ) {
            rewrite = kept
            bytes = kept.bytes
            // The records before the first change are copied where they are: a file system that clones shares
            // their blocks rather than writing them again.
            unchangedPrefix = self.unchangedPrefix(of: kept, replacing: state)
        } else {
            bytes = try encode(array: plan.records)
        }
        let identity = try writeWhole(&bytes, to: file, unchangedPrefix: unchangedPrefix)
        remember(
            &plan, in: identity, bytes: bytes, isSingleValue: single, rewrite: rewrite, remembering: remembering
        )
    }

    /// Splices the encoding of the records `plan` appends after those of `state` into the file's bytes and writes
    /// them; `false`, having written nothing, when the bytes cannot be spliced.
    ///
    /// Nothing here holds a second reference to the plan's records, not even a slice of them, so that they move
    /// into the state and grow there without a copy.
    private func append(
        to state: inout Snapshot<Value>, from plan: inout WritePlan<Value>, file: AtomicFile,
        remembering: RememberedValues
    ) throws -> Bool {
        guard scansStrictJSON else { return false }
        let appended = Array(plan.records[plan.storedCount...])
        if !state.unreadable.isEmpty {
            try refuseIdentitiesOfUnreadable(in: state, written: appended)
        }
        let encoded = try encode(array: appended)
        // Taken out of the state, so that the splice changes the only copy in place instead of copying the file.
        var bytes = Data()
        swap(&bytes, &state.bytes)
        guard let kept = JSONArraySplice(encoder: encoder).append(encoded, to: &bytes) else {
            swap(&bytes, &state.bytes)
            return false
        }
        let unchangedPrefix = AtomicFile.UnchangedPrefix(length: kept, identity: state.identity)
        state.identity = try writeWhole(&bytes, to: file, unchangedPrefix: unchangedPrefix)
        state.bytes = bytes
        state.values = plan.takeRecords()
        state.index = plan.index
        state.members = plan.members
        switch remembering {
        case .decoded:
            state.values.removeLast(appended.count)
            state.append(appended, decodedFrom: encoded, by: self)
        case .asGiven:
            state.valuesAreDecoded = false
        }
        keep(state)
        return true
    }

    /// Remembers the records of `plan`, just written as `bytes`, as the file's state.
    private func remember(
        _ plan: inout WritePlan<Value>, in identity: FileIdentity, bytes: Data, isSingleValue: Bool,
        rewrite: Rewrite? = nil, remembering: RememberedValues
    ) {
        var values = plan.takeRecords()
        var index = plan.index
        var members = plan.members
        // Records that kept parts of their stored bytes are what the file holds only once decoded from it.
        if let carried = rewrite?.carried, !carried.isEmpty {
            guard let decoded = decodeRecords(at: carried.map(\.range), in: bytes) else { return }
            for (position, value) in zip(carried.map(\.record), decoded) where values[position] != value {
                values[position] = value
                // Made from the records as written; made again from these when needed.
                index = nil
                members = nil
            }
        }
        var state = Snapshot<Value>(
            identity: identity, bytes: Data(), values: [], isSingleValue: isSingleValue, valuesAreDecoded: true,
            members: members, index: index
        )
        switch remembering {
        case .decoded:
            state.append(values, decodedFrom: bytes, by: self)
        case .asGiven:
            state.values = values
            state.valuesAreDecoded = false
        }
        state.bytes = bytes
        state.recordRanges = rewrite?.ranges
        state.unreadable = rewrite?.unreadable ?? IndexSet()
        keep(state)
    }

    /// The records at `ranges` of `bytes`, decoded as the current type; `nil` if one does not decode.
    private func decodeRecords(at ranges: [Range<Int>], in bytes: Data) -> [Value]? {
        var values: [Value] = []
        for range in ranges {
            let range = range.shifted(by: bytes.startIndex)
            guard let value = try? decoder.decode(Value.self, from: bytes[range]) else { return nil }
            values.append(value)
        }
        return values
    }
}
