import Foundation

/// An executable of this package, started as a real child process.
///
/// The test target depends on the executables, so they are built next to the test binary.
struct ChildProcess {
    let process: Process
    let output: Pipe
    let errors: Pipe
    /// The child's standard input; closed at once unless `input` was asked for.
    let input: Pipe

    /// The package's executable `name`, or the program at `name` if it is an absolute path.
    static func executable(_ name: String) -> URL {
        if name.hasPrefix("/") { return URL(fileURLWithPath: name) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Starts `name` with `arguments`; `environment` entries are added to this process's.
    init(_ name: String, _ arguments: [String], environment: [String: String] = [:], input: Bool = false) throws {
        process = Process()
        process.executableURL = Self.executable(name)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        output = Pipe()
        errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        self.input = Pipe()
        process.standardInput = input ? self.input : FileHandle.nullDevice
        try process.run()
    }

    /// Waits for the process to end and returns its exit status, standard output and standard error.
    ///
    /// Both pipes are drained while the child runs, so a child that writes a lot never blocks on a full pipe.
    func finish() -> (status: Int32, output: String, errors: String) {
        let errorText = PipeReader(errors)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), errorText.wait())
    }

    /// Runs `name` to the end.
    static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (status: Int32, output: String, errors: String)
    {
        try ChildProcess(name, arguments, environment: environment).finish()
    }
}

/// Reads a pipe to its end on a thread of its own.
final class PipeReader: @unchecked Sendable {
    // `data` is written once by the reading thread before it signals `done`, and read only after `done`.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func wait() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// Collects what a child writes to a pipe as it arrives, so that a test can wait for a piece of it with a deadline.
final class OutputCollector {
    private let condition = NSCondition()
    private var text = ""
    private var ended = false

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread { [self] in
            while true {
                let data = handle.availableData
                condition.lock()
                if data.isEmpty { ended = true } else { text += String(decoding: data, as: UTF8.self) }
                condition.broadcast()
                condition.unlock()
                if data.isEmpty { return }
            }
        }.start()
    }

    /// Waits until the text holds `needle`, `count` times at least, or `timeout` passes; returns whether it does.
    func wait(for needle: String, count: Int = 1, timeout: TimeInterval = 1) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        func found() -> Bool { text.components(separatedBy: needle).count - 1 >= count }
        while !found() {
            if ended || !condition.wait(until: deadline) { return found() }
        }
        return true
    }

    /// Everything received so far.
    var received: String {
        condition.lock()
        defer { condition.unlock() }
        return text
    }
}

// Every access to `text` and `ended` holds `condition`'s lock.
extension OutputCollector: @unchecked Sendable {}
