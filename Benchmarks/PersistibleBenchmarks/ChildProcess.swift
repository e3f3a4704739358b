import Foundation

/// The parent side of the contention workload: a copy of this executable running `ChildAppender`.
final class ChildProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var received = Data()

    init(arguments: [String]) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        // Standard error stays the parent's, so a failing child's message reaches the terminal.
        try process.run()
    }

    /// This executable: `/proc/self/exe` names it even when argv[0] is a bare name found through PATH.
    static let executable: URL = {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        #endif
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    }()

    /// Blocks until the child writes `line`; false if it closed its output first.
    func waitFor(_ line: String) -> Bool {
        let expected = Data((line + "\n").utf8)
        while true {
            if let range = received.range(of: expected) {
                received.removeSubrange(received.startIndex..<range.upperBound)
                return true
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            received.append(chunk)
        }
    }

    /// Sends `line` to the child's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The child's next line of output, without its newline; `nil` if it closed its output first.
    func readLine() -> String? {
        while true {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: received[received.startIndex..<newline], as: UTF8.self)
                received.removeSubrange(received.startIndex...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            received.append(chunk)
        }
    }

    func start() {
        input.fileHandleForWriting.write(Data("go\n".utf8))
        try? input.fileHandleForWriting.close()
    }

    /// Waits for the exit, which `Process` notices only at a coarse interval: never inside a timed region.
    func exitStatus() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}
