import Foundation
import Persistible

/// Several processes appending durably to one file at once, against one process making the same appends alone.
///
/// The package serializes writers with a lock, so the processes cannot be faster together than one alone; what this
/// shows is what the contention costs, and, above all, that no append is lost.
struct ContentionWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run() throws -> ContentionResult {
        let processes = plan.contentionProcesses
        let perProcess = plan.contentionAppendsPerProcess
        var result = ContentionResult(
            processes: processes, appendsPerProcess: perProcess,
            concurrent: Samples(), sequential: Samples(), fewestFound: processes * perProcess
        )
        for round in 0..<plan.contentionRepetitions {
            try interleave(round: round, [
                {
                    try ContentionRecord.deleteFile()
                    let prefixes = (0..<processes).map { "round\(round)-process\($0)" }
                    let seconds = try runChildren(prefixes: prefixes, count: perProcess)
                    result.concurrent.add(seconds)
                    let expected = prefixes.flatMap { prefix in
                        (0..<perProcess).map { ChildAppender.recordID(prefix: prefix, index: $0) }
                    }
                    let found = try Self.count(expected)
                    result.fewestFound = min(result.fewestFound, found)
                    progress("  \(processes) processes, round \(round + 1): "
                        + "the file holds \(found) of \(expected.count) appended records")
                },
                {
                    try ContentionRecord.deleteFile()
                    let ids = (0..<processes * perProcess).map { "round\(round)-alone-\($0)" }
                    result.sequential.add(try Stopwatch.seconds {
                        for id in ids { try ContentionRecord(id: id).saveToFile() }
                    })
                    let found = try Self.count(ids)
                    guard found == ids.count else {
                        throw WorkloadFailure(description: "contention: one process alone kept \(found) of \(ids.count) records")
                    }
                },
            ])
        }
        try ContentionRecord.deleteFile()
        return result
    }

    /// Starts the children, lets them go at once and returns the seconds until the last one has finished.
    private func runChildren(prefixes: [String], count: Int) throws -> Double {
        let children = try prefixes.map { prefix in
            try ChildProcess(arguments: ["--child-append", sandbox.url.path, prefix, String(count)])
        }
        defer { children.forEach { $0.stop() } }
        for child in children where !child.waitFor(ChildAppender.ready) {
            throw WorkloadFailure(description: "contention: a child exited before it was ready (status \(child.exitStatus()))")
        }
        var finished = true
        let seconds = Stopwatch.seconds {
            for child in children { child.send("go") }
            for child in children { finished = child.waitFor(ChildAppender.done) && finished }
        }
        let statuses = children.map { $0.exitStatus() }
        guard finished, statuses.allSatisfy({ $0 == 0 }) else {
            throw WorkloadFailure(description: "contention: a child failed (exit statuses \(statuses))")
        }
        return seconds
    }

    /// How many of `ids` the file holds.
    private static func count(_ ids: [String]) throws -> Int {
        let stored = Set(try ContentionRecord.loadListFromFile().map(\.id))
        return ids.filter(stored.contains).count
    }
}

/// The child side of the contention workload: `--child-append DIR PREFIX COUNT`.
///
/// It says "ready" and waits for a line on standard input before appending, so that the parent times the appends
/// and not the launches, and all the children start together. It says "done" after its last save has returned,
/// so that the parent's clock does not include the process's exit.
enum ChildAppender {
    struct Arguments {
        var directory: URL
        var prefix: String
        var count: Int
    }

    static let ready = "ready"
    static let done = "done"

    static func run(_ arguments: Arguments) -> Int32 {
        say(ready)
        // End of input means the parent is gone: appending now would write into a directory nobody will remove.
        guard readLine() != nil else { return 3 }
        do {
            try withArchiveDirectory(arguments.directory) {
                for index in 0..<arguments.count {
                    try ContentionRecord(id: recordID(prefix: arguments.prefix, index: index)).saveToFile()
                }
            }
        } catch {
            printError("child \(arguments.prefix): \(error)")
            return 1
        }
        say(done)
        return 0
    }

    static func recordID(prefix: String, index: Int) -> String {
        "\(prefix)-\(index)"
    }

    private static func say(_ line: String) {
        // FileHandle writes straight to the descriptor; print's buffer would hold the line back.
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// What the contention workload's processes append. Its identifiers are strings so that each process can name its
/// own records with a prefix and the parent can tell whose record went missing.
struct ContentionRecord: Codable, Hashable, Persistible {
    var id: String
    var payload: String

    static var fileName: String { "contention" }

    /// About the size of a `Record`, so a contended append costs what an uncontended one does.
    init(id: String) {
        self.id = id
        payload = "Person \(id), University of Ghana"
    }
}
