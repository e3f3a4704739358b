import Foundation
import Testing

@testable import Persistible

/// Record positions behave as the `IndexSet` they replace: ascending, each once, found by binary search.
@Suite struct RecordPositionsTests {
    @Test func positionsAreAscendingAndEachOnceWhateverTheOrderGiven() {
        var positions = RecordPositions([9, 2, 5, 2])
        positions.insert(7)
        positions.insert(0)
        positions.insert(5)
        let expected = IndexSet([9, 2, 5, 7, 0])
        #expect(Array(positions) == Array(expected))
        #expect(positions.count == expected.count)
        #expect(positions.first == expected.first)
        for candidate in -1...10 {
            #expect(positions.contains(candidate) == expected.contains(candidate), "\(candidate)")
            #expect(positions.count(below: candidate) == expected.count(in: ..<max(candidate, 0)), "\(candidate)")
        }
    }

    @Test func noPositionsAreEmpty() {
        let positions = RecordPositions()
        #expect(positions.isEmpty && positions.count == 0 && positions.first == nil && !positions.contains(0))
    }
}
