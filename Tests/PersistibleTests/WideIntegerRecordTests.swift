import Foundation
import Persistible
import Testing

/// Records identified and measured by the 128-bit integers, at their edges: what Foundation reads, a load reads, and
/// the writes after it keep.
@Suite struct WideIntegerRecordTests {
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    struct Account: Codable, Hashable, Identifiable, Persistible {
        var id: Int128
        var balance: UInt128
        var limit: Int128?
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func recordsOf128BitIntegersLoadAsFoundationReadsThemAndSaveOverThem() throws {
        try inTemporaryDirectory { _ in
            let stored = Data("""
                [{"id":-170141183460469231731687303715884105728,"balance":340282366920938463463374607431768211455},
                 {"id":170141183460469231731687303715884105727,"balance":0,"limit":-1e2},
                 {"id":12345678901234567890123,"balance":1.0,"limit":null}]
                """.utf8)
            try stored.write(to: Account.archiveUrl)
            let foundation = try JSONDecoder().decode([Account].self, from: stored)
            #expect(foundation.map(\.id) == [.min, .max, 12_345_678_901_234_567_890_123])
            #expect(try Account.loadListFromFile() == foundation)
            #expect(try Account.loadFromFile(id: .max) == foundation[1])

            let edited = Account(id: .min, balance: .max - 1, limit: .min)
            let added = Account(id: .max - 1, balance: 1 << 100, limit: nil)
            try edited.saveToFile()
            try added.saveToFile()
            let expected = [edited, foundation[1], foundation[2], added]
            #expect(try Account.loadListFromFile() == expected)
            #expect(try JSONDecoder().decode([Account].self, from: Data(contentsOf: Account.archiveUrl)) == expected)
        }
    }
}
