import Foundation
import Persistible
import Testing

/// Disk-full and I/O errors: real ones on a small tmpfs, and injected ones from a preloaded shim that makes one
/// system call fail on the temporary file. Every failure is typed, the old file stays byte for byte as it was, and
/// no temporary is left.
@Suite struct FaultTests {
    // MARK: - A full disk

    @Test func aFullDiskFailsTheSaveAndKeepsTheFile() throws {
        let directory = try TemporaryDirectory()
        guard let disk = SmallDisk(at: directory.file("disk").path) else { return }
        defer { disk.unmount() }
        let store = FileStore<StressRecord>(url: URL(fileURLWithPath: disk.path).appendingPathComponent("stress.json"))
        try store.insert(contentsOf: (0..<10).map { StressRecord(id: "kept-\($0)") })
        let before = try Data(contentsOf: store.url)
        let filler = disk.fill()
        defer { unlink(filler) }

        let error = persistenceError { try store.insert(contentsOf: (0..<500).map { StressRecord(id: "new-\($0)") }) }

        #expect(error?.reason == .writeFailed(operation: "write", errno: ENOSPC))
        #expect(try Data(contentsOf: store.url) == before)
        #expect(try disk.contents() == ["filler", "stress.json", "stress.json.lock"])
        unlink(filler)
        try store.insert(StressRecord(id: "after"))
        #expect(try store.all().count == 11)
    }

    // MARK: - Injected faults

    /// Each call a save makes that can fail, and whether the save flushes in full. A flushed save closes its
    /// temporary after the rename, once the flush has said whether the bytes reached the disk; one that does not
    /// flush in full writes its data with `fdatasync` and closes it before, since closing is where some file systems
    /// (NFS) report a failed write.
    static let faults: [(call: String, errno: Int32, flushes: Bool)] = [
        ("write", EIO, true), ("write", ENOSPC, true), ("fsync", EIO, true), ("close", EIO, false),
        ("rename", EIO, true), ("rename", EXDEV, true), ("write", EIO, false), ("rename", EIO, false),
        ("fdatasync", EIO, false),
    ]

    @Test(arguments: faults.indices)
    func anInjectedFaultFailsTheSaveAndKeepsTheFile(_ index: Int) throws {
        let (call, code, flushes) = Self.faults[index]
        let directory = try TemporaryDirectory()
        guard let (shim, data) = try savedOnce(in: directory) else { return }
        let before = try Data(contentsOf: data.appendingPathComponent("probe.json"))

        var environment = shim.environment(failing: call, with: code)
        if !flushes { environment["PROBE_NO_SYNC"] = "1" }
        let answers = try Probe.run(["save two"], in: data.path, environment: environment)

        #expect(answers == [#"writeFailed(operation: "\#(call)", errno: \#(code))"#])
        #expect(try Data(contentsOf: data.appendingPathComponent("probe.json")) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == ["probe.json", "probe.json.lock"])
        #expect(try Probe.run(["save two", "load"], in: data.path) == ["ok", "one,two"])
    }

    /// A flushed save's temporary is closed after the rename, when the flush has already said the bytes are on
    /// the disk: a failing close cannot make them less so, and the save stands.
    @Test func aFailedCloseAfterTheFlushLeavesTheSavedContentsInPlace() throws {
        let directory = try TemporaryDirectory()
        guard let (shim, data) = try savedOnce(in: directory) else { return }

        // Every close of the file fails, whether it still has its temporary's name or its own; so does every close
        // of its lock file, whose result nothing depends on.
        var environment = shim.environment(failing: "close", with: EIO)
        environment["FAULT_PATH"] = "probe.json"
        let answers = try Probe.run(["save two", "load"], in: data.path, environment: environment)

        #expect(answers == ["ok", "one,two"])
        #expect(try Probe.run(["load"], in: data.path) == ["one,two"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == ["probe.json", "probe.json.lock"])
    }

    @Test func anInjectedFaultOnTheDirectoryFlushLeavesTheNewContentsInPlace() throws {
        let directory = try TemporaryDirectory()
        guard let (shim, data) = try savedOnce(in: directory) else { return }

        var environment = shim.environment(failing: "fsync", with: EIO)
        // The directory's path as the kernel reports it, with no doubled slashes.
        let canonical = realpath(data.path, nil)
        defer { free(canonical) }
        environment["FAULT_PATH"] = canonical.map { String(cString: $0) }
        let answers = try Probe.run(["save two", "save two"], in: data.path, environment: environment)

        #expect(answers == Array(repeating: #"writeFailed(operation: "fsync directory", errno: 5)"#, count: 2))
        #expect(try Probe.run(["load"], in: data.path) == ["one,two"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.path).sorted() == ["probe.json", "probe.json.lock"])
    }

    /// A command-line tool retries in a new process, which cannot know that the failed save's flush is owed: a
    /// durable save that finds its value stored, or a delete that finds no file, flushes all the same.
    @Test func aRetryInANewProcessFlushesWhatTheFailedSaveLeftUnflushed() throws {
        let directory = try TemporaryDirectory()
        guard let (shim, data) = try savedOnce(in: directory) else { return }
        let canonical = realpath(data.path, nil)
        defer { free(canonical) }
        let directoryPath = try #require(canonical.map { String(cString: $0) })
        var failingDirectory = shim.environment(failing: "fsync", with: EIO)
        failingDirectory["FAULT_PATH"] = directoryPath
        var failingFile = shim.environment(failing: "fsync", with: EIO)
        failingFile["FAULT_PATH"] = directoryPath + "/probe.json"
        let directoryFailure = #"writeFailed(operation: "fsync directory", errno: 5)"#

        #expect(try Probe.run(["save two"], in: data.path, environment: failingDirectory) == [directoryFailure])
        // Each probe is a new process that finds "two" stored and nothing to write: only a flush can fail it.
        #expect(try Probe.run(["save two"], in: data.path, environment: failingDirectory) == [directoryFailure])
        #expect(try Probe.run(["save two"], in: data.path, environment: failingFile) == [#"writeFailed(operation: "fsync", errno: 5)"#])
        #expect(try Probe.run(["save two", "load"], in: data.path) == ["ok", "one,two"])
        #expect(try Probe.run(["delete"], in: data.path) == ["ok"])
        #expect(try Probe.run(["delete"], in: data.path, environment: failingDirectory) == [directoryFailure])
        // A save that does not flush owes nothing, and checks nothing.
        var noSync = failingDirectory
        noSync["PROBE_NO_SYNC"] = "1"
        #expect(try Probe.run(["save two", "save two"], in: data.path, environment: noSync) == ["ok", "ok"])
    }

    /// A directory in `directory` where a probe has saved one value, and the shim to fail the next save with; `nil`
    /// where the shim cannot be built.
    private func savedOnce(in directory: borrowing TemporaryDirectory) throws -> (shim: FaultShim, data: URL)? {
        guard let shim = try FaultShim(in: directory) else { return nil }
        let data = directory.file("data")
        #expect(mkdir(data.path, 0o700) == 0)
        #expect(try Probe.run(["save one"], in: data.path) == ["ok"])
        return (shim, data)
    }
}

/// A tmpfs of 1 MiB, mounted for one test; `nil`, with the reason printed, where it cannot be.
struct SmallDisk {
    let path: String

    init?(at path: String) {
        guard geteuid() == 0 else {
            print("Skipped: mounting a tmpfs needs root")
            return nil
        }
        guard mkdir(path, 0o700) == 0 else { return nil }
        guard let result = try? ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", path]),
            result.status == 0
        else {
            print("Skipped: could not mount a tmpfs at \(path)")
            rmdir(path)
            return nil
        }
        self.path = path
    }

    /// Fills the disk with a file, and returns its path.
    func fill() -> String {
        let filler = path + "/filler"
        let descriptor = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let chunk = [UInt8](repeating: 0, count: 4096)
        while write(descriptor, chunk, chunk.count) > 0 {}
        close(descriptor)
        return filler
    }

    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    /// Unmounts, lazily if something still holds the file system, so that no mount outlives the test.
    func unmount() {
        let result = try? ChildProcess.run("/bin/umount", [path])
        if result?.status != 0 { _ = try? ChildProcess.run("/bin/umount", ["-l", path]) }
        rmdir(path)
    }
}

/// A shared library, built with gcc for one test, that makes one system call fail with a chosen error number
/// when preloaded into a child process.
///
/// The call fails only on a file whose path contains `FAULT_PATH` (by default the temporary's `.persistible.tmp`), so
/// that the child's other reads and writes work. A failed `close` still closes, as Linux's does.
struct FaultShim {
    let library: String

    static let source = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>

        static int fault(const char *call, const char *path) {
            const char *chosen = getenv("FAULT_CALL");
            if (chosen == NULL || strcmp(chosen, call) != 0 || path == NULL) return 0;
            const char *marker = getenv("FAULT_PATH");
            if (marker == NULL) marker = ".persistible.tmp";
            if (strstr(path, marker) == NULL) return 0;
            const char *code = getenv("FAULT_ERRNO");
            return code != NULL ? atoi(code) : EIO;
        }

        static const char *path_of(int descriptor, char *buffer, size_t size) {
            char link[64];
            snprintf(link, sizeof link, "/proc/self/fd/%d", descriptor);
            ssize_t length = readlink(link, buffer, size - 1);
            if (length < 0) return NULL;
            buffer[length] = 0;
            return buffer;
        }

        ssize_t write(int descriptor, const void *bytes, size_t count) {
            static ssize_t (*real)(int, const void *, size_t);
            if (real == NULL) real = dlsym(RTLD_NEXT, "write");
            char buffer[4096];
            int code = fault("write", path_of(descriptor, buffer, sizeof buffer));
            if (code != 0) { errno = code; return -1; }
            return real(descriptor, bytes, count);
        }

        /* A save writes its temporary with pwrite; FAULT_CALL=write fails it too. */
        ssize_t pwrite(int descriptor, const void *bytes, size_t count, off_t offset) {
            static ssize_t (*real)(int, const void *, size_t, off_t);
            if (real == NULL) real = dlsym(RTLD_NEXT, "pwrite");
            char buffer[4096];
            int code = fault("write", path_of(descriptor, buffer, sizeof buffer));
            if (code != 0) { errno = code; return -1; }
            return real(descriptor, bytes, count, offset);
        }

        ssize_t pwrite64(int descriptor, const void *bytes, size_t count, off_t offset) {
            return pwrite(descriptor, bytes, count, offset);
        }

        int fsync(int descriptor) {
            static int (*real)(int);
            if (real == NULL) real = dlsym(RTLD_NEXT, "fsync");
            char buffer[4096];
            const char *path = path_of(descriptor, buffer, sizeof buffer);
            int code = fault("fsync", path);
            /* FAULT_PATH may name a directory exactly, to fail its flush and not the files in it. */
            const char *marker = getenv("FAULT_PATH");
            if (code != 0 && marker != NULL && path != NULL && strcmp(path, marker) != 0) code = 0;
            if (code != 0) { errno = code; return -1; }
            return real(descriptor);
        }

        /* A save that does not flush in full writes its temporary's data with fdatasync before the rename. */
        int fdatasync(int descriptor) {
            static int (*real)(int);
            if (real == NULL) real = dlsym(RTLD_NEXT, "fdatasync");
            char buffer[4096];
            int code = fault("fdatasync", path_of(descriptor, buffer, sizeof buffer));
            if (code != 0) { errno = code; return -1; }
            return real(descriptor);
        }

        int close(int descriptor) {
            static int (*real)(int);
            if (real == NULL) real = dlsym(RTLD_NEXT, "close");
            char buffer[4096];
            int code = fault("close", path_of(descriptor, buffer, sizeof buffer));
            int result = real(descriptor);
            if (code != 0) { errno = code; return -1; }
            return result;
        }

        int rename(const char *from, const char *to) {
            static int (*real)(const char *, const char *);
            if (real == NULL) real = dlsym(RTLD_NEXT, "rename");
            int code = fault("rename", from);
            if (code != 0) { errno = code; return -1; }
            return real(from, to);
        }

        /* A save renames its temporary through the directory it opened once; FAULT_CALL=rename fails it too. */
        int renameat(int from_directory, const char *from, int to_directory, const char *to) {
            static int (*real)(int, const char *, int, const char *);
            if (real == NULL) real = dlsym(RTLD_NEXT, "renameat");
            int code = fault("rename", from);
            if (code != 0) { errno = code; return -1; }
            return real(from_directory, from, to_directory, to);
        }
        """#

    /// Builds the shim in `directory`; `nil`, with the reason printed, where it cannot be built.
    init?(in directory: borrowing TemporaryDirectory) throws {
        #if os(Linux)
        let source = directory.file("fault.c").path
        library = directory.file("fault.so").path
        try Data(Self.source.utf8).write(to: URL(fileURLWithPath: source))
        guard let compiler = ["/usr/bin/gcc", "/usr/bin/cc"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("Skipped: no C compiler to build the fault-injection shim")
            return nil
        }
        let result = try ChildProcess.run(compiler, ["-shared", "-fPIC", "-o", library, source, "-ldl"])
        guard result.status == 0 else {
            print("Skipped: the fault-injection shim did not build: \(result.errors)")
            return nil
        }
        #else
        print("Skipped: the fault-injection shim relies on LD_PRELOAD and /proc, which are Linux's")
        return nil
        #endif
    }

    func environment(failing call: String, with code: Int32) -> [String: String] {
        ["LD_PRELOAD": library, "FAULT_CALL": call, "FAULT_ERRNO": "\(code)"]
    }
}
