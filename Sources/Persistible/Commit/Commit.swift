#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

// MARK: - Committing

/// What a write remembers of the records it wrote: what decoding the file gives, so that a type whose encoding loses
/// something loads as a new process would, or the records as given, as a store keeps its own values.
enum RememberedValues {
    case decoded, asGiven
}

extension Archive {
    /// Makes the file, read as `stored`, hold what `plan` says, under the caller's lock, and remembers what it wrote.
    func commit(
        _ plan: inout WritePlan<Value>, over stored: inout Snapshot<Value>?, to file: AtomicFile,
        remembering: RememberedValues
    ) throws {
        // Taken out of the optional, so that the state holds the only reference to the file's bytes.
        var state = stored.take()
        if state?.undecoded != nil {
            // The plan is done with the hashes: noting what the write changes then changes the only copy.
            plan.releaseUndecodedRecords()
            if !plan.storedChanges.isEmpty {
                try rewrite(undecoded: &state!, from: plan, file: file)
            } else if try !append(to: &state!, from: &plan, file: file, remembering: remembering) {
                throw UndecodedRecords.SpliceRefused()
            }
            return
        }
        // A plan that asks for a single value is written as one even over an empty array.
        if state?.stale.isEmpty == true, state?.isSingleValue == false, !plan.writesSingleValue, plan.onlyAppended,
            try append(to: &state!, from: &plan, file: file, remembering: remembering)
        {
            return
        }
        let single = plan.writesSingleValue && plan.records.count == 1 && state?.unreadable.isEmpty != false
        var bytes: Data
        var rewrite: Rewrite?
        if single {
            let value = plan.records[0]
            let source = plan.recordSources[0]
            // What the stored single value was read as, if the write kept or changed it: a value that replaces
            // another does not take the keys the other held beyond its type.
            var read = source == .unchanged(0) ? value : source == .changed(0) ? plan.replacedOriginals[0] : nil
            if state?.isSingleValue != true || plan.storedCount != 1 { read = nil }
            if let state, read != nil, source == .unchanged(0), state.stale.isEmpty {
                bytes = state.bytes
            } else {
                bytes = try encode(value)
                if let state, let read, scansStrictJSON, let range = JSONScanner.valueRange(of: state.bytes) {
                    // A migrated value is compared in its current-format form, which keeps what its older type knew.
                    let form = state.migrated.isEmpty ? state.bytes : try currentForm(
                        ofMigrated: state.bytes[offsets: range], at: 0, by: evolution.migrations
                    )
                    bytes = try carrying(from: form, beyond: try encode(read), into: bytes, at: 0)
                } else if let state, let read {
                    try requireNothingLostEncodingWhole(
                        state.bytes, isSingleValue: true, storedCount: 1, records: [read], sources: [.unchanged(0)],
                        originals: [:]
                    )
                }
            }
        } else if let state, let kept = try rewriteKeepingUntouched(
            state, storedCount: plan.storedCount, records: plan.records, sources: plan.recordSources,
            originals: plan.replacedOriginals
        ) {
            rewrite = kept
            bytes = kept.bytes
        } else {
            bytes = try encode(array: plan.records)
        }
        let identity = try file.write(&bytes, unchangedPrefix: rewrite?.unchangedPrefix, durability: durability)
        var written = Snapshot<Value>(
            identity: identity, bytes: bytes, values: [], isSingleValue: single, recordRanges: rewrite?.ranges,
            unreadable: rewrite?.unreadable ?? RecordPositions()
        )
        plan.move(into: &written)
        // Records that kept parts of their stored bytes are what the file holds only once decoded from it.
        for (position, range) in rewrite?.carried ?? [] {
            guard let value = try? decoder.decodeDirectly(Value.self, from: bytes[offsets: range]) else { return }
            if written.values[position] != value {
                written.values[position] = value
                (written.index, written.members) = (nil, nil)
            }
        }
        written.noteWritten(written.values.count, as: bytes, decoder: decoder, remembering: remembering)
        keep(written)
    }

    /// Splices the records `plan` appends onto the file's bytes and writes them, or returns `false`, writing nothing.
    private func append(
        to state: inout Snapshot<Value>, from plan: inout WritePlan<Value>, file: AtomicFile,
        remembering: RememberedValues
    ) throws -> Bool {
        guard scansStrictJSON else { return false }
        let appended = Array(plan.records[plan.storedCount...])
        try refuseIdentitiesOfUnreadable(in: state, written: appended)
        let encoded = try encode(array: appended)
        let keys = state.undecoded == nil ? [] : appended.map(RecordIdentity<Value>().of)
        if let undecoded = state.undecoded, !undecoded.storesIdentities(keys, in: encoded) { return false }
        // Taken out of the state, so that the splice changes the only copy in place instead of copying the file.
        var bytes = Data()
        swap(&bytes, &state.bytes)
        guard let kept = JSONArraySplice(encoder: encoder).append(encoded, to: &bytes) else {
            swap(&bytes, &state.bytes)
            return false
        }
        let unchangedPrefix = AtomicFile.UnchangedPrefix(length: kept, identity: state.identity)
        state.identity = try file.write(&bytes, unchangedPrefix: unchangedPrefix, durability: durability)
        state.bytes = bytes
        if state.undecoded != nil {
            state.undecoded?.noteAppended(keys)
            keep(state)
            return true
        }
        plan.move(into: &state)
        state.noteWritten(appended.count, as: encoded, decoder: decoder, remembering: remembering)
        keep(state)
        return true
    }
}

extension Archive {
    /// Writes the records read as bytes alone with the few that `plan` replaces or removes, and those it appends,
    /// copying every other as stored; remembers their identities for the next such write. Throws
    /// ``UndecodedRecords/SpliceRefused`` where the records' bytes or their encoding do not allow it, writing nothing.
    private func rewrite(undecoded state: inout Snapshot<Value>, from plan: WritePlan<Value>, file: AtomicFile) throws {
        let changes = plan.storedChanges
        guard var undecoded = state.undecoded.take(), let standIn = changes.read.values.first else {
            throw UndecodedRecords.SpliceRefused()
        }
        // The written records' own encoding shows again that each stores its identity under `id`.
        let written = Array(changes.replaced.values) + plan.records[plan.storedCount...]
        guard undecoded.storesIdentities(written.map(plan.identity.of), in: try encode(array: written)) else {
            throw UndecodedRecords.SpliceRefused()
        }
        let storedCount = undecoded.hashes.count
        let removed = RecordPositions(changes.removed)
        var sources = (0..<storedCount).map(RecordSource.unchanged)
        for position in changes.replaced.keys { sources[position] = .changed(position) }
        for position in removed.reversed() {
            sources.remove(at: position)
        }
        // Each record written, where it stands once the removed ones are gone; the appended ones last.
        let appended = plan.records[plan.storedCount...]
        var byPosition = Dictionary(
            uniqueKeysWithValues: changes.replaced.map { ($0.key - removed.count(below: $0.key), $0.value) }
        )
        for (offset, value) in appended.enumerated() { byPosition[sources.count + offset] = value }
        sources += repeatElement(.new, count: appended.count)
        let records = StandingIn(count: sources.count, written: byPosition, standIn: standIn)
        guard let rewrite = try rewriteKeepingUntouched(
            state, storedCount: storedCount, records: records, sources: sources, originals: changes.read
        ) else { throw UndecodedRecords.SpliceRefused() }
        var bytes = rewrite.bytes
        let identity = try file.write(&bytes, unchangedPrefix: rewrite.unchangedPrefix, durability: durability)
        // A removal may take the record whose decoding showed where identities are stored: the next write reads
        // them again, as a new process would.
        guard changes.removed.isEmpty else { return }
        undecoded.noteAppended(appended.map(plan.identity.of))
        var kept = Snapshot<Value>(identity: identity, bytes: bytes, values: [], recordRanges: rewrite.ranges)
        kept.undecoded = undecoded
        keep(kept)
    }
}

/// The records of a write on records read as bytes alone: those it writes, by position, and a value standing in for
/// each that is copied as stored, which is never encoded.
private struct StandingIn<Value>: RandomAccessCollection {
    let count: Int
    let written: [Int: Value]
    let standIn: Value

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(position: Int) -> Value { written[position] ?? standIn }
}

// MARK: - Encoding

extension Archive {
    func encode<T: Encodable>(_ value: T) throws(PersistenceError) -> Data {
        do {
            return Self.closingEmptyContainers(try encoder.encode(value))
        } catch {
            throw encodingFailure(error)
        }
    }

    /// Encodes an array 4,096 values at a time, spliced together: a small encoder tree is 10% faster on 100,000.
    func encode(array values: [Value]) throws(PersistenceError) -> Data {
        let length = 4096
        guard values.count > length else { return try encode(values) }
        let splice = JSONArraySplice(encoder: encoder)
        var bytes = try encode(Array(values[..<length]))
        for start in stride(from: length, to: values.count, by: length) {
            let end = min(start + length, values.count)
            guard splice.append(try encode(Array(values[start..<end])), to: &bytes) != nil else {
                return try encode(values)
            }
        }
        return bytes
    }

    /// `bytes` with `[]` and `{}` where a pretty-printing encoder wrote a blank line inside: no JSON string holds one.
    static func closingEmptyContainers(_ bytes: Data) -> Data {
        let newline = UInt8(ascii: "\n"), space = UInt8(ascii: " ")
        return bytes.withUnsafeBytes { buffer -> Data in
            var result: Data?
            var copied = 0
            var index = 0
            while let open = buffer[index...].firstIndex(of: newline).map({ $0 - 1 }) {
                index = open + 2
                guard open >= 0, buffer[open] == UInt8(ascii: "[") || buffer[open] == UInt8(ascii: "{"),
                    index < buffer.count, buffer[index] == newline
                else { continue }
                var closing = index + 1
                while closing < buffer.count, buffer[closing] == space { closing += 1 }
                // "]" follows "[", "}" follows "{".
                guard closing < buffer.count, buffer[closing] == buffer[open] + 2 else { continue }
                if result == nil { result = Data(capacity: buffer.count) }
                result!.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[copied...open]))
                copied = closing
                index = closing
            }
            guard var result else { return bytes }
            result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[copied...]))
            return result
        }
    }
}

// MARK: - Rewriting

/// A file's new bytes after a write that keeps the stored bytes of the records it did not change.
struct Rewrite {
    var bytes: Data
    var ranges: [Range<Int>]
    var unchangedPrefix: AtomicFile.UnchangedPrefix
    /// The records that carry parts of their stored bytes, and where each lies: they decode to other values.
    var carried: [(record: Int, range: Range<Int>)] = []
    /// The records no version reads, kept as stored, by position in `ranges`.
    var unreadable = RecordPositions()
}

extension Archive {
    /// The file's bytes with `records`: an unchanged record keeps its stored bytes, a changed, stale or migrated one
    /// what it held beyond its value as read (``UnknownKeys``) or this throws; `nil` if the records cannot be found
    /// in the bytes, once encoding them whole is shown to lose nothing.
    func rewriteKeepingUntouched<Records: RandomAccessCollection<Value>>(
        _ state: Snapshot<Value>, storedCount: Int, records: Records, sources: [RecordSource],
        originals: [Int: Value]
    ) throws(PersistenceError) -> Rewrite? where Records.Index == Int {
        guard state.unreadable.isEmpty else {
            return try rewriteKeepingUnreadable(
                state, storedCount: storedCount, records: records, sources: sources, originals: originals
            )
        }
        let pretty = encoder.outputFormatting.contains(.prettyPrinted)
        // A single value written as an array's record is indented one level deeper. Pretty-printed JSON has
        // newlines only between tokens, so indenting after each newline indents the value and nothing else.
        let stored = state.isSingleValue && pretty ? Self.indented(state.bytes) : state.bytes
        let found = state.isSingleValue
            ? JSONScanner.valueRange(of: stored).map { [$0] }
            : state.recordRanges ?? JSONScanner.elementRanges(of: stored)
        // Sources, not records: records no version reads, kept, have no value (see `rewriteKeepingUnreadable`).
        guard !sources.isEmpty else { return nil }
        guard scansStrictJSON, let ranges = found, ranges.count == storedCount else {
            try requireNothingLostEncodingWhole(
                state.bytes, isSingleValue: state.isSingleValue, storedCount: storedCount, records: Array(records),
                sources: sources, originals: originals
            )
            return nil
        }

        // Of the records written anew, what each was read as and its stored form: a migrated one's in the current
        // format, which keeps what its older type knew.
        var encoded: [Value] = []
        var encodedIndex = [Int](repeating: -1, count: sources.count)
        var carried: [(index: Int, original: Int, read: Value, form: Data, range: Range<Int>)] = []
        // Most files hold no stale record: an empty set is not asked about every record.
        let hasStale = !state.stale.isEmpty
        let migrations = state.migrated.isEmpty ? [] : evolution.migrations
        for (index, source) in sources.enumerated() {
            switch source {
            case .unchanged(let original) where hasStale && state.stale.contains(original), .changed(let original):
                // A stale record (it needed a default or a migration) is written anew, as a changed one is. Without
                // the value it held when read, what it holds that its type does not know cannot be told.
                guard let read = source == .changed(original) ? originals[original] : records[index] else {
                    throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(original)]"]))
                }
                let form = state.migrated.contains(original)
                    ? try currentForm(ofMigrated: stored[offsets: ranges[original]], at: original, by: migrations) : nil
                carried.append((index, original, read, form ?? stored, form.map { 0..<$0.count } ?? ranges[original]))
            case .unchanged:
                continue
            case .new:
                break
            }
            encodedIndex[index] = encoded.count
            encoded.append(records[index])
        }
        let pieces = try encodedElements(encoded)
        let known = try encodedElements(carried.map(\.read))
        var replacements: [Int: Data] = [:]
        var carriedRecords: [Int] = []
        // Every record's lost keys are named, not only the first one's.
        var lost: [String] = []
        let keys = KeyReading(decoder)
        for (position, change) in carried.enumerated() {
            let piece = encodedIndex[change.index]
            let encoding = Data(pieces.bytes[offsets: pieces.ranges[piece]])
            do {
                let merged = try carrying(
                    from: change.form, within: change.range, beyond: known.bytes, within: known.ranges[position],
                    into: encoding, at: change.original, keys: keys
                )
                guard merged != encoding else { continue }
                replacements[piece] = merged
                carriedRecords.append(change.index)
            } catch {
                guard case .unknownKeysWouldBeLost(let keyPaths) = error.reason else { throw error }
                lost += keyPaths
            }
        }
        guard lost.isEmpty else { throw failure(.unknownKeysWouldBeLost(keyPaths: lost)) }

        let separator = Data((pretty ? ",\n  " : ",").utf8)
        var bytes = Data(capacity: stored.count + pieces.bytes.count + 64)
        bytes.append(contentsOf: Array((pretty ? "[\n  " : "[").utf8))
        // Leading records copied to their own place, after the file's own opening, leave every byte before them.
        let sameOpening = stored.prefix(bytes.count).elementsEqual(bytes)
        var firstChange = 0
        var newRanges: [Range<Int>] = []
        newRanges.reserveCapacity(records.count)
        // Untouched neighbours are copied as one span, separators and all: a handful of copies, not one per record.
        var run: Range<Int>?
        func copyRun() {
            guard let copied = run else { return }
            let span = ranges[copied.lowerBound].lowerBound..<ranges[copied.upperBound - 1].upperBound
            let shift = bytes.count - span.lowerBound
            if newRanges.isEmpty, copied.lowerBound == 0, shift == 0, sameOpening { firstChange = span.upperBound }
            for original in copied { newRanges.append(ranges[original].shifted(by: shift)) }
            bytes.append(stored[offsets: span])
            run = nil
        }
        for (index, source) in sources.enumerated() {
            let piece = encodedIndex[index]
            if piece < 0, case .unchanged(let original) = source, let current = run, current.upperBound == original {
                run = current.lowerBound..<(original + 1)
                continue
            }
            copyRun()
            if index > 0 { bytes.append(separator) }
            if piece < 0, case .unchanged(let original) = source {
                run = original..<(original + 1)
            } else {
                let start = bytes.count
                bytes.append(replacements[piece] ?? pieces.bytes[offsets: pieces.ranges[piece]])
                newRanges.append(start..<bytes.count)
            }
        }
        copyRun()
        bytes.append(contentsOf: Array((pretty ? "\n]\n" : "]\n").utf8))
        return Rewrite(
            bytes: bytes, ranges: newRanges,
            unchangedPrefix: AtomicFile.UnchangedPrefix(length: firstChange, identity: state.identity),
            carried: carriedRecords.map { ($0, newRanges[$0]) }
        )
    }

    /// The rewrite of a file that holds records no version reads: each stays as stored among its old neighbours.
    /// The arguments and `carried` count only the records the type reads; `ranges` and `unreadable` count every one.
    private func rewriteKeepingUnreadable<Records: RandomAccessCollection<Value>>(
        _ state: Snapshot<Value>, storedCount: Int, records: Records, sources: [RecordSource],
        originals: [Int: Value]
    ) throws(PersistenceError) -> Rewrite where Records.Index == Int {
        let unreadable = state.unreadable
        guard scansStrictJSON, !state.isSingleValue,
            let ranges = state.recordRanges ?? JSONScanner.elementRanges(of: state.bytes),
            ranges.count == storedCount + unreadable.count
        else { throw failure(.unknownKeysWouldBeLost(keyPaths: unreadable.map { "[\($0)]" })) }
        let written = zip(records, sources).lazy.filter { if case .unchanged = $0.1 { false } else { true } }
        try refuseIdentitiesOfUnreadable(in: state, ranges: ranges, written: written.map(\.0))
        var whole = state
        whole.unreadable = RecordPositions()
        whole.recordRanges = ranges
        // Where each record the caller counts stands in the file.
        let stored = ranges.indices.filter { !unreadable.contains($0) }
        var allSources: [RecordSource] = []
        var allRecords: [Value] = []
        var kept = RecordPositions()
        var pending = unreadable.makeIterator()
        var next = pending.next()
        func keep(before position: Int) {
            while let record = next, record < position {
                kept.insert(allSources.count)
                allSources.append(.unchanged(record))
                // A kept record is copied, never encoded: any value stands in for it (with none, all are kept).
                if let standIn = records.first { allRecords.append(standIn) }
                next = pending.next()
            }
        }
        let lastStored = sources.lastIndex { $0 != .new }
        if lastStored == nil { keep(before: .max) }
        for (index, source) in sources.enumerated() {
            switch source {
            case .unchanged(let position), .changed(let position):
                let original = stored[position]
                keep(before: original)
                allSources.append(source == .unchanged(position) ? .unchanged(original) : .changed(original))
            case .new:
                allSources.append(.new)
            }
            allRecords.append(records[index])
            if index == lastStored { keep(before: .max) }
        }
        let allOriginals = Dictionary(uniqueKeysWithValues: originals.map { (stored[$0.key], $0.value) })
        guard var rewrite = try rewriteKeepingUntouched(
            whole, storedCount: ranges.count, records: allRecords, sources: allSources, originals: allOriginals
        ) else { throw failure(.unknownKeysWouldBeLost(keyPaths: unreadable.map { "[\($0)]" })) }
        // A record written is never kept: its position for the caller is its position less the kept ones before it.
        rewrite.carried = rewrite.carried.map { ($0.record - kept.count(below: $0.record), $0.range) }
        rewrite.unreadable = kept
        return rewrite
    }

    /// Throws where a value written has the `id` of an unreadable record: which a newer version keeps is unknown.
    func refuseIdentitiesOfUnreadable(
        in state: Snapshot<Value>, ranges known: [Range<Int>]? = nil, written values: some Sequence<Value>
    ) throws(PersistenceError) {
        guard !state.unreadable.isEmpty else { return }
        let identity = RecordIdentity<Value>()
        guard identity.usesIdentifier,
            let ranges = known ?? state.recordRanges ?? JSONScanner.elementRanges(of: state.bytes)
        else { return }
        var taken: [AnyHashable: Int] = [:]
        for position in state.unreadable where position < ranges.count {
            let record = state.bytes[offsets: ranges[position]]
            if let id = identity.decodedIdentifier(of: record, with: decoder) { taken[id] = position }
        }
        guard !taken.isEmpty else { return }
        let reading = recordReading(fillingDefaults: false)
        for value in values {
            guard let position = taken[identity.of(value)], case .failure(let mismatch) = decodeRecord(
                state.bytes, at: ranges[position], reading: reading, index: position
            ) else { continue }
            throw mismatchError(mismatch)
        }
    }

    /// `encoding` with what `stored` holds beyond `known`, the encoding of what it was read as (``UnknownKeys``);
    /// throws, naming record `position`, where that has no place in it or cannot be read.
    func carrying(
        from stored: Data, within storedRange: Range<Int>? = nil, beyond known: Data,
        within knownRange: Range<Int>? = nil, into encoding: Data, at position: Int, keys: KeyReading? = nil
    ) throws(PersistenceError) -> Data {
        // Keys that cannot be told apart cannot be shown to lose none: the decoder leaves the keys of an object no
        // type reads unread, so one holding a lone surrogate reaches here.
        guard let storedValue = JSONValue.parse(stored, at: storedRange),
            let knownValue = JSONValue.parse(known, at: knownRange)
        else { throw failure(.unknownKeysWouldBeLost(keyPaths: ["[\(position)]"])) }
        let unknown = UnknownKeys(stored: storedValue, known: knownValue, keys: keys ?? KeyReading(decoder))
        guard !unknown.isEmpty else { return encoding }
        let prettyPrinted = encoder.outputFormatting.contains(.prettyPrinted)
        guard let merged = unknown.carried(into: encoding, prettyPrinted: prettyPrinted) else {
            throw failure(.unknownKeysWouldBeLost(keyPaths: unknown.keyPaths(record: position)))
        }
        return merged
    }

    private func encodedElements(_ values: [Value]) throws(PersistenceError) -> (bytes: Data, ranges: [Range<Int>]) {
        guard !values.isEmpty else { return (Data(), []) }
        let bytes = try encode(array: values)
        guard let ranges = JSONScanner.elementRanges(of: bytes), ranges.count == values.count else {
            throw failure(.encodingFailed(detail: "The encoder did not write a JSON array of the values."))
        }
        return (bytes, ranges)
    }

    /// `bytes` with two spaces after each newline that does not end an empty line.
    private static func indented(_ bytes: Data) -> Data {
        var result = Data(capacity: bytes.count + bytes.count / 8)
        let newline = UInt8(ascii: "\n")
        var previous: UInt8 = 0
        for byte in bytes {
            if previous == newline, byte != newline { result.append(contentsOf: [0x20, 0x20]) }
            result.append(byte)
            previous = byte
        }
        return result
    }
}

extension Range<Int> {
    func shifted(by offset: Int) -> Range<Int> { (lowerBound + offset)..<(upperBound + offset) }
}

// MARK: - The atomic file

extension AtomicFile {
    private var temporaryName: String { ".\(name).persistible.tmp" }
    private var temporary: String { "\(directory)/\(temporaryName)" }

    /// Creates the temporary, open for writing, replacing what is there: only the lock's holder writes it.
    private func createTemporary(mode: mode_t, in opened: OpenDirectory) throws -> OpenFile {
        let operation = "create temporary file"
        if let created = try opened.create(exclusive: temporaryName, mode: mode, operation: operation) { return created }
        do {
            try opened.remove(temporaryName, operation: "remove abandoned temporary")
        } catch let error as SystemError where error.code == EPERM || error.code == EACCES {
            // Another user's file in a sticky directory was put there, not abandoned by a writer.
            if let status = try? opened.entryStatus(temporaryName), status.st_uid != FileSystem.effectiveUser {
                throw InTheWay(path: temporary, owner: status.st_uid)
            }
            throw error
        }
        guard let created = try opened.create(exclusive: temporaryName, mode: mode, operation: operation) else {
            throw SystemError(phase: .write, operation: operation, code: EEXIST)
        }
        return created
    }

    /// A write that would make the file longer than a load reads; nothing was made.
    struct TooLarge: Error {
        var size: Int64
    }

    /// Removes the temporary a writer left when it died, if any; a failure costs disk space, not data.
    func removeAbandonedTemporary() {
        _ = try? FileSystem.remove(temporary)
    }

    /// Replaces the file's contents with `bytes` and a final newline, cloning `unchangedPrefix` where the file is still
    /// that version and can be cloned; a ``SystemError`` but ``SystemError/directoryFlush`` leaves the file as it was.
    func write(_ bytes: inout Data, unchangedPrefix: UnchangedPrefix?, durability: Durability) throws -> FileIdentity {
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        // A file no load would read is never made.
        guard Int64(bytes.count) <= FileReader.sizeLimit else { throw TooLarge(size: Int64(bytes.count)) }
        // Opened once, and every step below taken through it: the file checked is the file replaced, whatever is
        // swapped in for the directory meanwhile. It also refuses an append-only directory before a temporary is
        // made in it, and flushes the rename.
        let opened = OpenDirectory(directory)
        defer { opened.close() }
        guard opened.file?.isAppendOnly != true else {
            throw SystemError(phase: .write, operation: "check append-only directory", code: EPERM)
        }
        // The file to clone is opened and its status read once, for the clone and for the mode and owner.
        let source = unchangedPrefix.flatMap { cloneSource(keeping: $0, of: bytes, in: opened) }
        defer { source?.file.closeQuietly() }
        // Anything but a regular file swapped in since the lock's check is refused, a link too.
        let existing = source?.status ?? (try? opened.entryStatus(name)) ?? nil
        if let existing, !existing.isRegularFile {
            throw SystemError(phase: .read, operation: "open", code: existing.isDirectory ? EISDIR : EINVAL)
        }
        let replaced = existing.map {
            Replaced(status: $0, in: directoryOwnership ?? opened.file?.ownership, path: path)
        }
        let mode = replaced.map(Self.creationMode(replacing:)) ?? 0o666
        let (file, clone) = try source.map { source in
            try FileClone.create(
                atPath: temporary, sharing: source, keeping: unchangedPrefix?.length ?? 0, total: bytes.count,
                orCreate: { try createTemporary(mode: mode, in: opened) }
            )
        } ?? (createTemporary(mode: mode, in: opened), nil)
        // Set where the file is closed before the rename.
        var closed: stat?
        do {
            if let replaced { try Self.copyOwnership(from: replaced, to: file) }
            // A clone's length is set first, so that the write stays within the file: past the end, XFS reserves
            // blocks that closing gives back in a transaction of its own. An idle truncate costs one too.
            if let clone, bytes.count != clone.length { try file.truncate(to: bytes.count) }
            try file.write(bytes, from: clone?.shared ?? 0)
            if durability == .full {
                try file.flush()
            } else {
                // The bytes reach the disk before the name does (<doc:Guarantees#Durability>).
                try file.flushDataBeforeRename()
                // The bytes can still fail to reach the file (NFS says so when it is closed): it is closed, and the
                // identity read, before it replaces anything.
                closed = try file.status()
                try file.close()
            }
            try opened.rename(temporaryName, to: name)
        } catch {
            if closed == nil { file.closeQuietly() }
            _ = try? opened.remove(temporaryName)
            throw error
        }
        // The identity is read after the rename, which moves the file's change time on most file systems: a flushed
        // file's from the open file, so that it is this file's; a closed one's from the path, if it is still this
        // file. Reading its times before a change makes the change cost more (see FileOwnership). None, or another
        // file's, makes the next operation read.
        let identity: FileIdentity
        if let closed {
            identity = FileIdentity(FileSystem.status(path).flatMap { $0.isSameFile(as: closed) ? $0 : nil } ?? closed)
        } else {
            identity = FileIdentity((try? file.status()) ?? stat())
            file.closeQuietly()
        }
        changes.madeAny = true
        if durability == .full { try opened.flushAfterChange() }
        return identity
    }

    /// Flushes the file as it is, if any, and its directory: an earlier operation may have replaced it and failed to
    /// flush, and a durable success means what it found is on the disk.
    func flushAsFound() throws {
        let opened = OpenDirectory(directory)
        defer { opened.close() }
        if let file = try opened.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, .write) {
            defer { file.closeQuietly() }
            try file.flush()
        }
        try opened.flushAfterChange()
    }

    /// Removes the file the links led to; a missing file is not an error. Only a regular file is removed: the
    /// directory is opened once, and what is checked in it is what is removed.
    func remove(durability: Durability) throws {
        let opened = OpenDirectory(directory)
        defer { opened.close() }
        guard let status = try opened.entryStatus(name) else { return }
        guard status.isRegularFile else {
            throw SystemError(phase: .write, operation: "delete", code: status.isDirectory ? EISDIR : EINVAL)
        }
        guard try opened.remove(name) else { return }
        changes.madeAny = true
        if durability == .full { try opened.flushAfterChange() }
    }

    // MARK: - Ownership

    /// What a new version takes from the file it replaces: the owner, group, mode and ACL, unless the file belongs
    /// to neither the saver nor the directory's owner in a directory others may write to, where anyone may have
    /// planted it: then it is the saver's, with the mode the saver's umask gives, never more than the file allowed.
    struct Replaced {
        let status: stat
        let directory: FileOwnership?
        let list: AccessControlList?
        let keepsOwner: Bool

        init(status: stat, in directory: FileOwnership?, path: String) {
            self.status = status
            self.directory = directory
            list = AccessControlList.of(path, SystemCalls.current)
            let user = FileSystem.effectiveUser
            keepsOwner = status.st_uid == user || directory.map {
                status.st_uid == $0.owner || $0.mode & 0o022 == 0
            } ?? true
        }

        /// The file's mode, narrowed to what its ACL let the group and others do.
        var allowedMode: mode_t {
            let mode = status.st_mode & 0o7777
            return list?.narrowing(mode) ?? mode
        }
    }

    /// The mode to create a replacement with: the file's own where the temporary is sure to get its owner, group
    /// and no ACL, else 0600, so that nobody else reads the temporary before they are set; for a file not kept, the
    /// allowed read and write bits, which the umask narrows.
    private static func creationMode(replacing replaced: Replaced) -> mode_t {
        guard replaced.keepsOwner else { return replaced.allowedMode & 0o666 }
        let existing = replaced.status
        guard existing.st_mode & 0o7000 == 0, existing.st_uid == FileSystem.effectiveUser,
            existing.st_gid == FileSystem.effectiveGroup, replaced.list == nil,
            let directory = replaced.directory, directory.group == existing.st_gid
        else { return 0o600 }
        return existing.st_mode & 0o777
    }

    /// Gives the new file the old one's owner, group, mode and ACL, where the process may; the owner and group first,
    /// since `fchown` may clear the mode's setuid and setgid bits, and the ACL last, once the mode is no wider than
    /// it allows.
    private static func copyOwnership(from replaced: Replaced, to file: OpenFile) throws {
        guard replaced.keepsOwner else { return }
        let existing = replaced.status
        // The new file's owner and group are the process's, or the directory's group where the directory is setgid.
        guard let created = file.ownership else { throw SystemError.last("fstat", .write) }
        var group = created.group
        if created.owner != existing.st_uid || created.group != existing.st_gid {
            if FileSystem.effectiveUser == 0 {
                guard file.changeOwner(to: existing.st_uid, group: existing.st_gid) else {
                    throw SystemError.last("fchown", .write)
                }
                group = existing.st_gid
            } else if created.owner == existing.st_uid {
                if file.changeOwner(to: uid_t.max, group: existing.st_gid) { group = existing.st_gid }
            }
        }
        // In another group, no group access (<doc:Guarantees#Symbolic-links-permissions-and-ownership>).
        var mode = replaced.allowedMode
        if group != existing.st_gid { mode &= ~0o070 }
        // Created with the mode already, as usual, the file needs no change: on XFS it would cost a transaction.
        if created.mode & 0o7777 != mode || group != created.group {
            try file.changeMode(to: mode)
        }
        // A list that cannot be set leaves the narrowed mode, which grants nobody more than the list did.
        if let list = replaced.list, group == existing.st_gid { _ = list.apply(to: file) }
    }

    // MARK: - Clones

    /// The leading bytes a new version of a file shares with `identity`; any other version is written whole.
    struct UnchangedPrefix {
        var length: Int
        var identity: FileIdentity
    }

    /// The file, open, and its status, when it is the version `prefix` describes and a clone is worth trying.
    private func cloneSource(
        keeping prefix: UnchangedPrefix, of bytes: Data, in opened: OpenDirectory
    ) -> (file: OpenFile, status: stat)? {
        guard prefix.length > 0, prefix.length <= bytes.count, FileClone.mayClone(onDevice: prefix.identity.device),
            let source = try? opened.open(name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, .read)
        else { return nil }
        // The identity is checked on the open file, so the clone is of the very version the prefix came from.
        guard let status = try? source.status(), status.isRegularFile, FileIdentity(status) == prefix.identity,
            Int(status.st_size) >= prefix.length
        else {
            source.closeQuietly()
            return nil
        }
        return (source, status)
    }
}
