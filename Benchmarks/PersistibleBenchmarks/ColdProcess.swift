import Foundation

/// One run of a program, timed from `posix_spawn` to `waitpid`: `Process` notices an exit only at a coarse interval,
/// which would be most of a short program's time.
struct ColdProcess {
    private let path: String
    private let arguments: [String]
    private let environment: [String]

    /// `environment` adds `NAME=value` entries to this process's own.
    init(_ path: String, _ arguments: [String], environment: [String]) {
        self.path = path
        self.arguments = arguments
        self.environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" } + environment
    }

    /// Runs the program to its end; its output goes to `/dev/null` unless `capturing`. Throws unless it exits 0.
    func run(capturing: Bool = false) throws -> (seconds: Double, output: String) {
        // The child's standard output is this process's, pointed elsewhere while it starts: the same on every
        // platform, where spawn file actions are declared differently. The report is printed only at the end.
        var pipe: [Int32] = [-1, -1]
        if capturing { guard Foundation.pipe(&pipe) == 0 else { throw failure("pipe") } }
        defer { for end in pipe where end >= 0 { close(end) } }
        let output = capturing ? pipe[1] : open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard output >= 0 else { throw failure("open /dev/null") }
        defer { if !capturing { close(output) } }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { for string in argv + envp { free(string) } }
        fflush(nil)
        let saved = dup(1)
        dup2(output, 1)
        var child: pid_t = 0
        let clock = ContinuousClock()
        let start = clock.now
        let spawned = posix_spawn(&child, path, nil, nil, argv, envp)
        dup2(saved, 1)
        close(saved)
        guard spawned == 0 else { throw failure("posix_spawn", spawned) }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 {
            guard errno == EINTR else { throw failure("waitpid") }
        }
        let seconds = (clock.now - start).seconds
        var printed = ""
        if capturing {
            close(pipe[1])
            pipe[1] = -1
            printed = String(decoding: FileHandle(fileDescriptor: pipe[0]).readDataToEndOfFile(), as: UTF8.self)
            while printed.hasSuffix("\n") { printed.removeLast() }
        }
        // 0 is an exit with status 0; anything else a failure or a signal.
        guard status == 0 else {
            throw WorkloadFailure(description: "\(path) \(arguments.joined(separator: " ")): wait status \(status)")
        }
        return (seconds, printed)
    }

    private func failure(_ call: String, _ code: Int32 = errno) -> WorkloadFailure {
        WorkloadFailure(description: "\(call) for \(path) failed: \(String(cString: strerror(code)))")
    }
}
