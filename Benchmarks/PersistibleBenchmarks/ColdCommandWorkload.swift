import Foundation
import Persistible

/// The record of the command-line tool's file: the benchmark's four fields, `Identifiable`, in `Person.json`.
struct ColdRecord: BenchmarkRecord, Identifiable, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String

    static var fileName: String { "Person" }
}

/// A command-line tool on the package, one process per call as a user runs it, each reading the file cold; beside
/// it, Foundation alone decoding the same file, the `sqlite3` shell's insert, an append in a process that has the
/// file loaded already, and the floors of a Swift program that decodes one small value.
struct ColdCommandWorkload {
    let sandbox: Sandbox
    let plan: Plan
    let tools: ColdTools

    func run(n: Int) throws -> ColdCommandResult {
        var result = ColdCommandResult(n: n)
        let directory = sandbox.file("cold-\(n)")
        let loaded = sandbox.file("cold-\(n)-loaded")
        for folder in [directory, loaded] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try withArchiveDirectory(folder) { try (0..<n).map(ColdRecord.init(index:)).saveToFile() }
        }
        let file = directory.appendingPathComponent("Person.json").path
        let database = directory.appendingPathComponent("people.db").path
        try SQLiteShell.create(database, records: n)
        let environment = ["PERSISTIBLE_DIRECTORY=\(directory.path)"]
        let toolAdds = FreshIndices(from: n)
        let inProcessAdds = FreshIndices(from: n)
        let sqliteAdds = FreshIndices(from: n)
        let repetitions = plan.coldCommandRepetitions
        for round in 0..<repetitions {
            try interleave(round: round, [
                { result.add.add(try tools.run(.tool, ["add", "\(toolAdds.take())"], environment: environment)) },
                {
                    // A stored record each time, spread over the file, so that every edit changes one.
                    let id = (round * 7_919) % n
                    result.edit.add(try tools.run(.tool, ["edit", "\(id)"], environment: environment))
                },
                { result.count.add(try tools.run(.tool, ["count"], environment: environment)) },
                { result.foundationDecode.add(try tools.run(.foundation, [file])) },
                {
                    let record = ColdRecord(index: inProcessAdds.take())
                    result.inProcessAppend.add(try withArchiveDirectory(loaded) {
                        try Stopwatch.seconds { try record.saveToFile() }
                    })
                },
                {
                    let id = sqliteAdds.take()
                    let insert = "INSERT INTO person VALUES (\(id), 'Person \(id)', 19, 'KNUST');"
                    result.sqliteInsert.add(try tools.run(.sqlite, [database, insert]))
                },
                { result.helloFoundation.add(try tools.run(.foundation, [])) },
                { result.helloEssentials.add(try tools.run(.essentials, [])) },
            ])
        }
        // Every call did its work: each add is in the file, and a lookup finds its record.
        let stored = try withArchiveDirectory(directory) { try ColdRecord.loadListFromFile() }
        try expect(stored.count == n + repetitions, "cold command", "\(stored.count) of \(n + repetitions) records")
        let edited = stored.filter { $0.name.hasPrefix("Edited") }.count
        try expect(edited == Set((0..<repetitions).map { ($0 * 7_919) % n }).count, "cold command", "\(edited) edited")
        let answer = try tools.output(.tool, ["lookup", "\(n / 2)"], environment: environment)
        try expect(answer == "Person \(n / 2)", "cold command", "the lookup printed \(answer)")
        return result
    }

    /// Each size's lookup, after `run(n:)` made its file, the sizes interleaved round by round: the target compares
    /// the largest file's lookup with the smallest's, so the two are measured side by side, not a minute apart.
    func measureLookups(_ results: inout [ColdCommandResult]) throws {
        let sizes = results.map(\.n)
        var lookups = sizes.map { _ in Samples() }
        for round in 0..<plan.coldCommandRepetitions {
            try interleave(round: round, sizes.indices.map { index in
                {
                    let n = sizes[index]
                    let environment = ["PERSISTIBLE_DIRECTORY=\(sandbox.file("cold-\(n)").path)"]
                    lookups[index].add(try tools.run(.tool, ["lookup", "\(n / 2)"], environment: environment))
                }
            })
        }
        for index in results.indices { results[index].lookup = lookups[index] }
    }

    /// The tool loading a file of one record, against the floor of a program that imports the same Foundation.
    func runOneRecord() throws -> ColdOneRecordResult {
        var result = ColdOneRecordResult()
        let directory = sandbox.file("cold-one")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try withArchiveDirectory(directory) { try ColdRecord(index: 0).saveToFile() }
        let environment = ["PERSISTIBLE_DIRECTORY=\(directory.path)"]
        for round in 0..<plan.coldCommandRepetitions * 2 {
            try interleave(round: round, [
                { result.toolLoad.add(try tools.run(.tool, ["count"], environment: environment)) },
                { result.helloEssentials.add(try tools.run(.essentials, [])) },
                { result.helloFoundation.add(try tools.run(.foundation, [])) },
            ])
        }
        return result
    }
}

/// The programs the workload starts: built beside this executable by `swift build -c release`, and `sqlite3`.
struct ColdTools {
    enum Tool {
        /// `PersistibleColdTool`: the package and `FoundationEssentials`.
        case tool
        /// `ColdFoundationReader`: Foundation alone.
        case foundation
        /// `ColdEssentialsHello`: the smallest Foundation alone.
        case essentials
        case sqlite
    }

    private let paths: [Tool: String]

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    init() throws {
        let directory = ChildProcess.executable.deletingLastPathComponent()
        var paths: [Tool: String] = [.sqlite: "/usr/bin/sqlite3"]
        let names: [Tool: String] = [
            .tool: "PersistibleColdTool", .foundation: "ColdFoundationReader", .essentials: "ColdEssentialsHello",
        ]
        for (tool, name) in names {
            paths[tool] = directory.appendingPathComponent(name).path
        }
        for path in paths.values where !FileManager.default.isExecutableFile(atPath: path) {
            throw Missing(description: "\(path) is missing: build every product with `swift build -c release` first")
        }
        self.paths = paths
    }

    /// Runs `tool` to its end, its output discarded, and returns the seconds from its start to its exit.
    func run(_ tool: Tool, _ arguments: [String], environment: [String] = []) throws -> Double {
        try ColdProcess(paths[tool]!, arguments, environment: environment).run().seconds
    }

    /// What `tool` printed, without its final newline.
    func output(_ tool: Tool, _ arguments: [String], environment: [String] = []) throws -> String {
        try ColdProcess(paths[tool]!, arguments, environment: environment).run(capturing: true).output
    }
}

/// The `sqlite3` shell, with its defaults: a rollback journal and full synchronous writes.
enum SQLiteShell {
    static func create(_ database: String, records n: Int) throws {
        let script = """
            CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, school TEXT);
            WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x + 1 < \(n))
            INSERT INTO person SELECT x, 'Person ' || x, 18 + x % 50, 'KNUST' FROM i;
            """
        _ = try runTool("/usr/bin/sqlite3", [database, script])
    }
}
