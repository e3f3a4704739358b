import Foundation

/// A child process spoken to in lines: the contention and watch workloads' copies of this executable, and SQLite's
/// python3.
final class ChildProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var received = Data()

    init(executable: URL = ChildProcess.executable, arguments: [String]) throws {
        process.executableURL = executable
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

    /// Blocks until the child writes the line `line`; false if it closed its output first.
    func waitFor(_ line: String) -> Bool {
        while let next = readLine() {
            if next == line { return true }
        }
        return false
    }

    /// Sends `line` to the child's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Ends the child's input, as the end of a file would.
    func closeInput() {
        try? input.fileHandleForWriting.close()
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

    /// Waits for the exit, which `Process` notices only at a coarse interval: never inside a timed region.
    func exitStatus() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    func stop() {
        if process.isRunning { process.terminate() }
    }
}

/// Runs `tool` to its end and returns what it wrote, standard error included; throws if it failed.
func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(text)")
    }
    return text
}

struct ToolFailure: Error, CustomStringConvertible {
    var description: String
}
