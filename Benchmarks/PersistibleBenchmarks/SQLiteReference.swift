import Foundation

/// SQLite, as the database a user would pick instead, through `python3`'s `sqlite3` module in a child process:
/// the package has no dependency, and the module is SQLite's own library.
///
/// The child fills a table with the same n records, then makes one durable insert (its own transaction,
/// `synchronous=FULL`) per line it reads, answering with the seconds the insert took, timed in the child so that
/// the pipe is not counted.
final class SQLiteReference {
    enum JournalMode: String, CaseIterable {
        case wal = "WAL"
        case delete = "DELETE"
    }

    private let child: ChildProcess

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    init(database: URL, mode: JournalMode, records n: Int) throws {
        let python = URL(fileURLWithPath: "/usr/bin/python3")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Unavailable(description: "python3 is not installed")
        }
        child = try ChildProcess(
            executable: python, arguments: ["-c", Self.script, database.path, mode.rawValue, String(n)]
        )
        guard child.waitFor("ready") else {
            throw Unavailable(description: "python3's sqlite3 module did not start")
        }
    }

    /// One durable insert of the next record, in seconds.
    func insert() throws -> Double {
        child.send("insert")
        guard let line = child.readLine(), let seconds = Double(line) else {
            throw WorkloadFailure(description: "sqlite reference: no answer to an insert")
        }
        return seconds
    }

    /// Ends the child, returning how many records its table holds.
    func finish() throws -> Int {
        child.closeInput()
        guard let line = child.readLine(), line.hasPrefix("count "), let count = Int(line.dropFirst(6)) else {
            throw WorkloadFailure(description: "sqlite reference: no final count")
        }
        _ = child.exitStatus()
        return count
    }

    /// The same fields and values as `BenchmarkRecord.init(index:)`.
    private static let script = """
        import sqlite3, sys, time
        path, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
        schools = ["University of Ghana", "KNUST", "Ashesi University", "University of Cape Coast"]
        def row(i): return (i, "Person %d" % i, 18 + i % 50, schools[i % len(schools)])
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("PRAGMA journal_mode=" + mode)
        db.execute("PRAGMA synchronous=FULL")
        db.execute("CREATE TABLE records (id INTEGER PRIMARY KEY, name TEXT, age INTEGER, school TEXT)")
        db.execute("BEGIN")
        db.executemany("INSERT INTO records VALUES (?, ?, ?, ?)", (row(i) for i in range(n)))
        db.execute("COMMIT")
        print("ready", flush=True)
        following = n
        for line in sys.stdin:
            started = time.perf_counter()
            db.execute("INSERT INTO records VALUES (?, ?, ?, ?)", row(following))
            print("%.9f" % (time.perf_counter() - started), flush=True)
            following += 1
        print("count %d" % db.execute("SELECT count(*) FROM records").fetchone()[0], flush=True)
        db.close()
        """
}
