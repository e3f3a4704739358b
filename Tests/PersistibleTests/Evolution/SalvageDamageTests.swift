import Foundation
import Persistible
import Testing

/// A record whose strings hold what a resynchronizing reader could mistake for the start of a record, and whose
/// nested array holds objects, which could be mistaken for records.
struct Card: Codable, Hashable, Persistible {
    var id: Int
    var text: String
    var parts: [Part]

    struct Part: Codable, Hashable {
        var n: Int
    }

    static var archiveDurability: Durability { .noSync }
}

/// Salvage after generated damage: every cut, every flipped or deleted byte, of files laid out as the package writes
/// them (a record per line) and as compact arrays.
@Suite struct SalvageDamageTests {
    static let cards = [
        Card(id: 1, text: "{\"id\":9,\"text\":\"x\",\"parts\":[]}", parts: [.init(n: 1), .init(n: 2)]),
        Card(id: 22, text: "a,{},[1],{ } ,\n{", parts: []),
        Card(id: 333, text: "é ] , {", parts: [.init(n: 3)]),
        Card(id: 4, text: "", parts: [.init(n: 4), .init(n: 5), .init(n: 6)]),
    ]

    /// The cards' file as the package writes it and as a compact array, with each record's byte range.
    static func layouts() throws -> [(name: String, file: Data, records: [Range<Int>])] {
        try Self.cards.saveToFile()
        let written = try bytes(of: Card.self)
        // The package writes each record from a line indented by two spaces to a line holding only "  }".
        let text = Array(written)
        var pretty: [Range<Int>] = []
        var start: Int?
        for index in text.indices where text[index] == UInt8(ascii: "\n") {
            let line = text[(index + 1)...].prefix { $0 != UInt8(ascii: "\n") }
            if line.elementsEqual("  {".utf8) { start = index + 3 }
            if line.starts(with: "  }".utf8), let first = start {
                pretty.append(first..<(index + 4))
                start = nil
            }
        }
        var compact = Data("[".utf8)
        var compactRanges: [Range<Int>] = []
        for (index, card) in Self.cards.enumerated() {
            if index > 0 { compact.append(UInt8(ascii: ",")) }
            let record = try JSONEncoder().encode(card)
            compactRanges.append(compact.count..<(compact.count + record.count))
            compact.append(record)
        }
        compact.append(UInt8(ascii: "]"))
        try #require(pretty.count == Self.cards.count)
        return [("as written", written, pretty), ("compact", compact, compactRanges)]
    }

    private func salvage(_ contents: Data) throws -> SalvagedRecords<Card> {
        try contents.write(to: Card.archiveUrl)
        return try Card.salvageFile()
    }

    /// Each unreadable part holds the bytes of the file at its range, in order and without overlap.
    private func expectPartsAreTheFilesBytes(
        _ salvaged: SalvagedRecords<Card>, of file: Data, _ comment: @autoclosure () -> String
    ) {
        let file = Data(file)
        var end = 0
        for part in salvaged.unreadable {
            let range = part.byteRange
            #expect(range.lowerBound >= end && range.upperBound <= file.count && file[range] == part.bytes, "\(comment())")
            end = range.upperBound
        }
    }

    @Test func oneDamagedRecordOfEightGivesTheOtherSeven() throws {
        try inTemporaryDirectory { _ in
            let people = (0..<8).map { Person(name: "P\($0)", age: $0, school: "S\($0)") }
            try people.saveToFile()
            var file = try bytes(of: Person.self)
            // A syntax error inside record 3: a colon gone from between a key and its value.
            let marker = try #require(file.firstRange(of: Data("\"name\" : \"P3\"".utf8)))
            file.remove(at: marker.lowerBound + 7)
            let salvaged = try salvage(file, as: Person.self)
            #expect(salvaged.values == people.enumerated().filter { $0.offset != 3 }.map(\.element))
            try #require(salvaged.unreadable.count == 1)
            let part = salvaged.unreadable[0]
            #expect(part.index == 3)
            #expect(part.codingPath == "[3]")
            let text = String(decoding: part.bytes, as: UTF8.self)
            #expect(text.hasPrefix("{") && text.hasSuffix("}") && text.contains("\"name\"  \"P3\""), "\(text)")
            #expect(part.message.contains("expected ':'"), "\(part.message)")
            #expect(file[part.byteRange] == part.bytes)
        }
    }

    private func salvage<T: Persistible & Codable & Hashable>(_ contents: Data, as type: T.Type) throws
        -> SalvagedRecords<T>
    {
        try contents.write(to: T.archiveUrl)
        return try T.salvageFile()
    }

    /// A nested object that ends a record is never taken for one when the record's own end is what is damaged, even
    /// where defaults would fill every key it lacks.
    @Test func aNestedObjectAtARecordsDamagedEndIsNoRecord() throws {
        try inTemporaryDirectory { _ in
            let text = #"[{"id":1,"name":"A","work":{"city":"P"}},{"id":2,"name":"B","work":{"city":"Q"}}]"#
            let broken = text.replacingOccurrences(of: #""P"}}"#, with: #""P"}"#)
            let salvaged = try salvage(Data(broken.utf8), as: Contact.self)
            #expect(salvaged.values == [Contact(id: 2, name: "B", work: .init(city: "Q"))])
            #expect(salvaged.unreadable.count == 1)
        }
    }

    /// A file as the package writes it, damaged in one record and cut off inside its last: every record between the
    /// two places comes back, not one blob.
    @Test func recordsBetweenDamageAndACutComeBack() throws {
        try inTemporaryDirectory { _ in
            let cards = (0..<12).map { Card(id: $0, text: "card \($0)", parts: [.init(n: $0)]) }
            try cards.saveToFile()
            var text = String(decoding: try bytes(of: Card.self), as: UTF8.self)
            let third = try #require(text.range(of: #""text" : "card 3""#))
            text.replaceSubrange(third, with: #""text" x "card 3""#)
            let last = try #require(text.range(of: #""text" : "card 11""#))
            let salvaged = try salvage(Data(text[..<last.upperBound].utf8))
            #expect(salvaged.values == Array(cards[0..<3] + cards[4..<11]))
            #expect(salvaged.unreadable.count == 2)
        }
    }

    @Test func everyCutGivesEveryRecordCompleteBeforeIt() throws {
        try inTemporaryDirectory { _ in
            for (layout, file, records) in try Self.layouts() {
                for cut in 0...file.count {
                    let salvaged = try salvage(file.prefix(cut))
                    let complete = records.filter { $0.upperBound <= cut }.count
                    #expect(salvaged.values == Array(Self.cards.prefix(complete)), "\(layout), cut at \(cut)")
                    if records.contains(where: { $0.lowerBound < cut && cut < $0.upperBound }) {
                        #expect(!salvaged.unreadable.isEmpty, "\(layout), cut at \(cut): the rest is not reported")
                    }
                    expectPartsAreTheFilesBytes(salvaged, of: file.prefix(cut), "\(layout), cut at \(cut)")
                }
            }
        }
    }

    @Test func everyFlippedOrDeletedByteLosesOnlyTheRecordItTouches() throws {
        try inTemporaryDirectory { _ in
            for (layout, file, records) in try Self.layouts() {
                for position in file.indices {
                    var damages: [(String, Data)] = []
                    var deleted = file
                    deleted.remove(at: position)
                    damages.append(("deleted", deleted))
                    // A byte of text, and ones that open a string, a record or a line, or close the array.
                    for byte in "x\"{]\n".utf8 where byte != file[position] {
                        var flipped = file
                        flipped[position] = byte
                        damages.append(("'\(Character(Unicode.Scalar(byte)))'", flipped))
                    }
                    let touched = records.firstIndex { $0.contains(position) }
                    let untouched = Self.cards.indices.filter { $0 != touched }.map { Self.cards[$0] }
                    for (damage, damaged) in damages {
                        let comment = "\(layout), byte \(position) \(damage)"
                        let salvaged = try salvage(damaged)
                        var rest = salvaged.values[...]
                        for card in untouched {
                            guard let found = rest.firstIndex(of: card) else {
                                Issue.record("record \(card.id) lost: \(comment)")
                                break
                            }
                            rest = rest[(found + 1)...]
                        }
                        // Beside the untouched records, only the touched one's value, decoded from its own bytes.
                        #expect(salvaged.values.count <= untouched.count + (touched == nil ? 0 : 1), "\(comment)")
                        #expect(salvaged.values.count + salvaged.unreadable.count >= Self.cards.count, "\(comment)")
                        expectPartsAreTheFilesBytes(salvaged, of: damaged, comment)
                    }
                }
            }
        }
    }
}

/// A record whose last member is an object, and whose every key has a default.
private struct Contact: Codable, Hashable, Persistible {
    struct Address: Codable, Hashable {
        var city = ""
    }

    var id = 0
    var name = ""
    var work = Address()

    static var archiveDefaults: Contact? { Contact() }
}
