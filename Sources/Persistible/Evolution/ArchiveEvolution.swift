#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The members of ``Persistible/archiveDefaults``'s encoding, ready to be inserted into records that lack them. Keys
/// are matched as bytes, which is all most records pay; they are unescaped and compared as ``KeyReading`` reads them
/// only where another spelling is possible: the decoder converts keys, or a key is escaped or not ASCII.
struct DefaultsObject {
    struct Member {
        /// The key as the encoder wrote it, inside the quotes; `name`, unescaped. An array, which every record's keys
        /// are compared with at less cost than a `Data`.
        var key: [UInt8]
        var name: String
        /// `"key":value` as the encoder wrote it, to insert.
        var text: Data
        /// The value's own members, when it is an object, to fill in a record's object under the same key.
        var child: DefaultsObject?
    }

    var members: [Member]
    let keys: KeyReading
    private let matchesOtherSpellings: Bool

    init?(_ value: JSONValue, in encoding: Data, keys: KeyReading) {
        guard let members = value.members else { return nil }
        self.keys = keys
        self.members = members.map { member in
            Member(
                key: Array(encoding[offsets: member.keyRange]), name: member.key,
                text: Data(encoding[offsets: (member.keyRange.lowerBound - 1)..<member.value.range.upperBound]),
                child: DefaultsObject(member.value, in: encoding, keys: keys)
            )
        }
        matchesOtherSpellings = !keys.readsAsSpelled
            || self.members.contains { $0.key.contains(where: Self.mayBeSpelledOtherwise) }
    }

    /// Appends to `insertions`, in increasing order of offset, the members that the object at `range` of `buffer`
    /// lacks, at every depth. `path` holds the keys above it, as read.
    private func insertions(
        into buffer: UnsafeRawBufferPointer, at range: Range<Int>, path: [String] = [],
        _ insertions: inout [(range: Range<Int>, text: Data)]
    ) {
        var found = [Bool](repeating: false, count: members.count)
        var missing = members.count
        var count = 0
        // Found members that hold defaults of their own, in stored order, which keeps the insertions in order.
        var nested: [(child: DefaultsObject, name: String, value: Range<Int>)] = []
        let isObject = JSONScanner.forEachMember(in: buffer, at: range) { storedKey, storedValue in
            count += 1
            guard missing > 0 else { return }
            let key = UnsafeRawBufferPointer(rebasing: buffer[storedKey.shifted(by: range.lowerBound)])
            var match = members.indices.first { index in
                !found[index] && members[index].key.count == key.count && members[index].key.elementsEqual(key)
            }
            // A key of plain ASCII that the decoder reads as spelled is itself or no other.
            if match == nil, matchesOtherSpellings || key.contains(where: Self.mayBeSpelledOtherwise),
                let name = JSONScanner.unescaped(key)
            {
                match = members.indices.first { !found[$0] && keys.same(name, members[$0].name, at: path) }
            }
            guard let match else { return }
            found[match] = true
            missing -= 1
            if let child = members[match].child {
                nested.append((child, members[match].name, storedValue.shifted(by: range.lowerBound)))
            }
        }
        guard isObject else { return }
        if missing > 0 {
            // Appended one by one: a joined sequence would build the bytes one at a time, for every record.
            var text = Data()
            for (index, member) in members.enumerated() where !found[index] {
                if !text.isEmpty { text.append(UInt8(ascii: ",")) }
                text.append(member.text)
            }
            if count > 0 { text.append(UInt8(ascii: ",")) }
            // Right after the opening brace, so that the offsets of everything below stay in order.
            let brace = buffer[range].firstIndex(of: UInt8(ascii: "{"))! + 1
            insertions.append((brace..<brace, text))
        }
        for (child, name, value) in nested {
            // A decoder that reads keys as spelled needs no path, which would cost every record an array.
            let below = keys.readsAsSpelled ? path : path + [keys.read(name, at: path)]
            child.insertions(into: buffer, at: value, path: below, &insertions)
        }
    }

    /// An escape, or a character that may have canonically equivalent forms.
    private static func mayBeSpelledOtherwise(_ byte: UInt8) -> Bool {
        byte >= 0x80 || byte == UInt8(ascii: "\\")
    }

    /// `record` with these defaults filled, or `nil` when it lacks none of them.
    func filled(_ record: Data) -> Data? {
        let (bytes, _, filled) = fill(record, records: [0..<record.count])
        return filled.isEmpty ? nil : bytes
    }

    /// Only the member at `path`, the keys as the type reads them; `nil` if these defaults hold nothing there.
    func only(at path: [String], under parents: [String] = []) -> DefaultsObject? {
        guard let key = path.first,
            var member = members.first(where: { keys.read($0.name, at: parents) == key })
        else { return nil }
        if path.count > 1 {
            member.child = member.child?.only(at: Array(path.dropFirst()), under: parents + [key])
            guard member.child != nil else { return nil }
        }
        var only = self
        only.members = [member]
        return only
    }

    /// `bytes` with the records at `ranges` filled, their ranges in the result, and which records gained a key.
    func fill(
        _ bytes: Data, records ranges: [Range<Int>]
    ) -> (bytes: Data, ranges: [Range<Int>], filled: RecordPositions) {
        var filled = RecordPositions()
        var insertions: [(range: Range<Int>, text: Data)] = []
        var newRanges: [Range<Int>] = []
        var shift = 0
        bytes.withUnsafeBytes { buffer in
            for (index, range) in ranges.enumerated() {
                let before = insertions.count
                self.insertions(into: buffer, at: range, &insertions)
                let added = insertions[before...].reduce(0) { $0 + $1.text.count }
                if added > 0 { filled.insert(index) }
                newRanges.append((range.lowerBound + shift)..<(range.upperBound + shift + added))
                shift += added
            }
        }
        guard !filled.isEmpty, let result = bytes.applying(insertions) else {
            return (bytes, ranges, RecordPositions())
        }
        return (result, newRanges, filled)
    }
}

extension Archive {
    /// The members of a default value's encoding that may fill a record, which never include an `Identifiable`
    /// type's `id`: a record that lacks its identity has none, and two such records given one would be one record.
    func defaultsObject(from encoding: Data) -> DefaultsObject? {
        guard let value = JSONValue.parse(encoding),
            var object = DefaultsObject(value, in: encoding, keys: KeyReading(decoder))
        else { return nil }
        if RecordIdentity<Value>().usesIdentifier {
            object.members.removeAll { object.keys.read($0.name, at: []) == "id" }
        }
        return object
    }
}

extension Data {
    /// These bytes with each range, counted from the first byte, replaced by its text; `nil` if ranges overlap or
    /// are out of order.
    func applying(_ edits: [(range: Range<Int>, text: Data)]) -> Data? {
        var result = Data(capacity: count + edits.reduce(0) { $0 + $1.text.count })
        var copied = 0
        for edit in edits {
            guard edit.range.lowerBound >= copied else { return nil }
            result.append(self[offsets: copied..<edit.range.lowerBound])
            result.append(edit.text)
            copied = edit.range.upperBound
        }
        result.append(self[offsets: copied..<count])
        return result
    }
}
