import Foundation

/// A PersistibleProbe child process, driven one command at a time; see Tests/Probe for its commands.
final class Probe {
    private let child: ChildProcess
    private var pending = Data()

    /// Starts a probe on `directory`, as the user `user` (uid and gid) when given, with `environment` added.
    init(directory: String, user: (uid: UInt32, gid: UInt32)? = nil, environment: [String: String] = [:]) throws {
        // A probe that dies, as one that traps does, must fail its test, not kill the test process with SIGPIPE
        // when the next command is written to it; the write then fails with EPIPE, which is ignored.
        signal(SIGPIPE, SIG_IGN)
        let userArguments = user.map { ["--user", "\($0.uid):\($0.gid)"] } ?? []
        child = try ChildProcess("PersistibleProbe", userArguments + [directory], environment: environment, input: true)
    }

    var processIdentifier: Int32 { child.process.processIdentifier }

    /// Sends `command` and returns the line the probe answers, or `nil` if none comes within `seconds`: a probe
    /// that hangs fails the test instead of stalling the run.
    func send(_ command: String, within seconds: Double = 30) -> String? {
        post(command)
        return nextLine(within: seconds)
    }

    /// Sends a line without waiting for an answer: the line that ends a "hold".
    func post(_ line: String) {
        try? child.input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// The next line the probe prints, or `nil` if none comes within `seconds`.
    func nextLine(within seconds: Double = 30) -> String? {
        let descriptor = child.output.fileHandleForReading.fileDescriptor
        let deadline = Date(timeIntervalSinceNow: seconds)
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeSubrange(...end)
                return line
            }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { return nil }
            var event = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&event, 1, Int32(min(remaining, 1) * 1000) + 1) >= 0 || errno == EINTR else { return nil }
            guard event.revents != 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { return nil }
            pending.append(contentsOf: buffer[..<count])
        }
    }

    /// Ends the probe: asks it to exit, and kills it if it has not within `seconds`.
    func finish(within seconds: Double = 30) {
        post("exit")
        try? child.input.fileHandleForWriting.close()
        let deadline = Date(timeIntervalSinceNow: seconds)
        while child.process.isRunning, deadline.timeIntervalSinceNow > 0 {
            usleep(10_000)
        }
        if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
        child.process.waitUntilExit()
    }

    deinit {
        if child.process.isRunning {
            kill(child.process.processIdentifier, SIGKILL)
            child.process.waitUntilExit()
        }
    }

    /// Runs `commands` in a new probe and returns its answers, `nil` for any that did not come in time.
    static func run(
        _ commands: [String], in directory: String, user: (uid: UInt32, gid: UInt32)? = nil,
        environment: [String: String] = [:], within seconds: Double = 30
    ) throws -> [String?] {
        let probe = try Probe(directory: directory, user: user, environment: environment)
        defer { probe.finish() }
        return commands.map { probe.send($0, within: seconds) }
    }
}

/// A user and group with no other files, for the tests that act as someone other than root.
let otherUser: (uid: UInt32, gid: UInt32) = (65533, 65534)
