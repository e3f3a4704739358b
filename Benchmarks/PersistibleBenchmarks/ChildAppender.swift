import Foundation
import Persistible

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
