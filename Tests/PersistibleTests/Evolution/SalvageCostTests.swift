import Foundation
import Persistible
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Files shaped to make a reader go over the same bytes again and again: a load, its error and a salvage each cost
/// a small multiple of a plain load of a valid file as large, measured in the same run, whatever the bytes.
@Suite struct SalvageCostTests {
    struct Tally: Codable, Hashable, Persistible {
        var v: Int
    }

    /// Large enough that reading the bytes again for each value around them costs hundreds of plain loads.
    static let size = 128 * 1024

    /// `unit` repeated to `size` bytes after `prefix`.
    static func repeated(_ unit: String, after prefix: String = "") -> Data {
        var data = Data(prefix.utf8)
        let unit = Data(unit.utf8)
        data.reserveCapacity(size + unit.count)
        while data.count < size { data.append(unit) }
        return data
    }

    static let shapes: [(String, Data)] = [
        ("arrays opened", repeated("[")),
        ("arrays of objects opened", repeated(#"[{"":"#)),
        ("objects of arrays opened", repeated(#"{"":["#)),
        ("escaped quotes", repeated(#"\""#, after: #"[""#)),
        ("backslashes", repeated(#"\"#, after: #"[""#)),
        ("zeros", Data(count: size)),
        ("tiny records cut short", repeated(#"{"v":1},"#, after: "[")),
        ("an object of many keys cut short", repeated(#","k":1"#, after: #"[{"v":1"#)),
    ]

    /// The processor time this thread spends in `body`: other processes' load does not count.
    static func cost(of body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        let start = now()
        try body()
        return now() - start
    }

    @Test func loadsErrorsAndSalvageOfHostileFilesCostAFewPlainLoads() throws {
        try inTemporaryDirectory { _ in
            var valid = Data("[".utf8)
            while valid.count < Self.size { valid.append(Data(#"{"v":\#(valid.count)},"#.utf8)) }
            valid[valid.count - 1] = UInt8(ascii: "]")
            try valid.write(to: Tally.archiveUrl)
            // The best of a few, so that a slow first run does not make the bound generous.
            let plainLoad = try (0..<3).map { _ in
                try Self.cost {
                    Tally.clearArchiveCache()
                    _ = try Tally.loadListFromFile()
                }
            }.min()!
            for (shape, contents) in Self.shapes {
                try contents.write(to: Tally.archiveUrl)
                Tally.clearArchiveCache()
                var error: PersistenceError?
                let load = Self.cost { error = persistenceError { _ = try Tally.loadListFromFile() } }
                let salvage = try Self.cost { _ = try Tally.salvageFile() }
                #expect(error != nil, "\(shape)")
                #expect(load <= 20 * plainLoad, "\(shape): a load cost \(load / plainLoad) plain loads")
                #expect(salvage <= 20 * plainLoad, "\(shape): salvage cost \(salvage / plainLoad) plain loads")
                #expect(try Data(contentsOf: Tally.archiveUrl) == contents, "\(shape)")
            }
        }
    }
}
