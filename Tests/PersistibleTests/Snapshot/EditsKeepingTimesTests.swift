import Foundation
import Testing

@testable import Persistible

/// Edits made by tools that put back what a file's status shows: `cp --preserve=timestamps` over the file in place,
/// keeping its size and modification time, and a file deleted and made again on the same inode with its modification
/// time restored. Only the change time tells such a version from the one remembered: every load and save sees it.
@Suite struct EditsKeepingTimesTests {
    /// Records saved with each durability: the identity a save remembers is read at another point of each.
    struct Flushed: TimesRecord {
        var id: Int
        var name: String
    }

    struct Unflushed: TimesRecord {
        var id: Int
        var name: String

        static var archiveDurability: Durability { .noSync }
    }

    enum Kind: String, CaseIterable, Sendable {
        case flushed, unflushed
    }

    /// What the process does first after the edit.
    enum Next: String, CaseIterable, Sendable {
        /// A load, then a save of a new record.
        case load
        /// A lookup of the edited record.
        case lookup
        /// A save of a new record onto what a load remembered.
        case save
        /// A save of a new record onto the identities alone that a cold append remembered.
        case saveAfterAColdAppend
    }

    @Test(arguments: Kind.allCases, EditKeepingStatus.allCases)
    func anEditThatPutsBackSizeInodeAndModificationTimeIsLoadedAndKept(_ kind: Kind, _ edit: EditKeepingStatus) throws {
        for next in Next.allCases {
            switch kind {
            case .flushed: try checkEditIsSeen(Flushed.self, edit, next)
            case .unflushed: try checkEditIsSeen(Unflushed.self, edit, next)
            }
        }
    }

    private func checkEditIsSeen<Record: TimesRecord>(_: Record.Type, _ edit: EditKeepingStatus, _ next: Next) throws {
        try inTemporaryDirectory { directory in
            let stored = [Record(id: 1, name: "alpha"), Record(id: 2, name: "beta")]
            try stored.saveToFile()
            #expect(try Record.loadListFromFile() == stored)
            var expected = stored
            if next == .saveAfterAColdAppend {
                Record.clearArchiveCache()
                try Record(id: 3, name: "gamma").saveToFile()
                expected.append(Record(id: 3, name: "gamma"))
            }
            // Same length: the file keeps its size.
            let path = Record.archiveUrl.path
            let edited = try Data(contentsOf: Record.archiveUrl).replacing(Data("alpha".utf8), with: Data("omega".utf8))
            try directory.edit(path, to: edited, by: edit)
            expected[0].name = "omega"

            let added = Record(id: 4, name: "delta")
            let context = "\(edit) then \(next)"
            switch next {
            case .load:
                #expect(try Record.loadListFromFile() == expected, "\(context)")
                try added.saveToFile()
            case .lookup:
                #expect(try Record.loadFromFile(id: 1) == expected[0], "\(context)")
                return
            case .save, .saveAfterAColdAppend:
                try added.saveToFile()
            }
            // Had the save trusted what it remembered, the edit would be written over.
            let written = try JSONDecoder().decode([Record].self, from: Data(contentsOf: Record.archiveUrl))
            #expect(written == expected + [added], "\(context)")
        }
    }

    // MARK: - Without an edit

    /// After this process's own save, with each durability, a load and the next save find the file as remembered:
    /// the identity a save remembers is the one the file has after its rename.
    @Test(arguments: Kind.allCases)
    func aLoadOrSaveAfterThisProcesssSaveReadsNothing(_ kind: Kind) throws {
        switch kind {
        case .flushed: try checkNothingIsRead(Flushed.self)
        case .unflushed: try checkNothingIsRead(Unflushed.self)
        }
    }

    private func checkNothingIsRead<Record: TimesRecord>(_: Record.Type) throws {
        try inTemporaryDirectory { _ in
            let reads = Counter()
            var calls = SystemCalls.live
            calls.read = { descriptor, buffer, count in
                reads.increment()
                return SystemCalls.live.read(descriptor, buffer, count)
            }
            try [Record(id: 1, name: "alpha"), Record(id: 2, name: "beta")].saveToFile()
            try SystemCalls.$current.withValue(calls) {
                #expect(try Record.loadListFromFile().count == 2)
                try Record(id: 3, name: "gamma").saveToFile()
                #expect(try Record.loadListFromFile().count == 3)
                #expect(try Record.loadFromFile(id: 3) == Record(id: 3, name: "gamma"))
            }
            #expect(reads.value == 0)
        }
    }
}

/// A record of ``EditsKeepingTimesTests``.
protocol TimesRecord: Codable, Hashable, Identifiable, Persistible where ID == Int {
    init(id: Int, name: String)
    var name: String { get set }
}
