import Foundation
import Persistible
import Testing

/// A `Set` is encoded in an order that changes from process to process, so a stored record's sets rarely stand in
/// the order in which this process encodes what it read from them. A write that keeps what a record holds beyond the
/// encoding of its value compares sets by their elements, of any kind, not by their order.
@Suite struct SetOrderTests {
    struct Plan: Codable, Hashable, Identifiable {
        struct Step: Codable, Hashable {
            var name: String
        }

        var id: String
        var steps: Set<Step>
        var tags: Set<String>
        var title: String
    }

    /// One record with eight steps and tags in order, and `zone`, which `Plan` does not know.
    private func installed(in directory: borrowing TemporaryDirectory) throws -> (URL, FileStore<Plan>) {
        let url = directory.file("plans.json")
        let steps = (1...8).map { #"{"name":"s\#($0)"}"# }.joined(separator: ",")
        let tags = (1...8).map { #""t\#($0)""# }.joined(separator: ",")
        let text = #"[{"id":"a","steps":[\#(steps)],"tags":[\#(tags)],"title":"Plan","zone":3}]"#
        try Data(text.utf8).write(to: url)
        return (url, FileStore<Plan>(url: url))
    }

    private func zone(at url: URL) throws -> Int? {
        let records = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [[String: Any]])
        return records.first?["zone"] as? Int
    }

    @Test func anEditOfAnotherFieldKeepsTheUnknownKey() throws {
        let directory = try TemporaryDirectory()
        let (url, store) = try installed(in: directory)
        var plan = try #require(try store.all().first)
        plan.title = "Plan B"
        try store.update(plan)
        #expect(try store.all() == [plan])
        #expect(try zone(at: url) == 3)
    }

    @Test func anEditOfTheSetsThemselvesKeepsTheUnknownKey() throws {
        let directory = try TemporaryDirectory()
        let (url, store) = try installed(in: directory)
        var plan = try #require(try store.all().first)
        plan.steps.insert(Plan.Step(name: "s9"))
        plan.tags.remove("t1")
        try store.update(plan)
        #expect(try store.all() == [plan])
        #expect(try zone(at: url) == 3)
    }
}
