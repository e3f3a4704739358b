import Foundation
import Persistible

/// Appending one new value to a file that holds n records: the package, the article's algorithm and the I/O floor.
struct AppendWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run(n: Int) throws -> AppendResult {
        let repetitions = plan.appendRepetitions(n: n)
        let articleRepetitions = plan.articleRepetitions(n: n)

        // Every contender starts from the same bytes, written as the package would write them.
        let seed = try Record.archiveEncoder.encode((0..<n).map(Record.init(index:)))
        let floorDurableFile = sandbox.file("floor-durable.json")
        let floorNoSyncFile = sandbox.file("floor-nosync.json")
        let files = [
            Record.archiveUrl, NoSyncRecord.archiveUrl, ArticleRecord.archiveUrl, IdentifiedRecord.archiveUrl,
            floorDurableFile, floorNoSyncFile,
        ]
        for file in files {
            try seed.write(to: file, options: .atomic)
        }
        // The floor rewrites what the file holds; reading it is not part of what it measures.
        let floorBytes = try Data(contentsOf: floorDurableFile)

        let indices = FreshIndices(from: n)

        let packageDurable = { _ = try Record(index: indices.take()).saveToFile() }
        let packageNoSync = { _ = try NoSyncRecord(index: indices.take()).saveToFile() }
        let article = { try ArticleRecord(index: indices.take()).saveToFile() }
        // The record in the middle, with a name that differs from the stored one on every save.
        var edits = 0
        let editNoSync = {
            edits += 1
            var record = IdentifiedRecord(index: n / 2)
            record.name = "Edited \(edits)"
            guard try record.saveToFile() else {
                throw WorkloadFailure(description: "append (edit in place): the save wrote nothing")
            }
        }
        let unchangedDurable = {
            guard try !Record(index: 0).saveToFile() else {
                throw WorkloadFailure(description: "append (unchanged): a save of a stored value wrote")
            }
        }
        let floorDurable = { try IOFloor.rewrite(floorBytes, atPath: floorDurableFile.path, durable: true) }
        let floorNoSync = { try IOFloor.rewrite(floorBytes, atPath: floorNoSyncFile.path, durable: false) }

        // One untimed round first: the package's first save decodes the file and remembers it, which later saves,
        // the steady state of an app, do not repeat.
        for warmUp in [
            packageDurable, packageNoSync, article, floorDurable, floorNoSync, editNoSync, unchangedDurable,
        ] {
            try warmUp()
        }

        var result = AppendResult(
            n: n, packageDurable: Samples(), packageNoSync: Samples(), article: Samples(),
            floorDurable: Samples(), floorNoSync: Samples(), editNoSync: Samples(), unchangedDurable: Samples()
        )
        for round in 0..<max(repetitions, articleRepetitions) {
            var contenders: [() throws -> Void] = []
            if round < repetitions {
                contenders += [
                    { result.packageDurable.add(try Stopwatch.seconds(packageDurable)) },
                    { result.packageNoSync.add(try Stopwatch.seconds(packageNoSync)) },
                    { result.floorDurable.add(try Stopwatch.seconds(floorDurable)) },
                    { result.floorNoSync.add(try Stopwatch.seconds(floorNoSync)) },
                    { result.editNoSync.add(try Stopwatch.seconds(editNoSync)) },
                    { result.unchangedDurable.add(try Stopwatch.seconds(unchangedDurable)) },
                ]
            }
            if round < articleRepetitions {
                contenders.append { result.article.add(try Stopwatch.seconds(article)) }
            }
            try interleave(round: round, contenders)
        }

        // A contender that silently failed to append would look fast; each file must have grown by every append.
        let counts = [
            ("package, durable", try Record.loadListFromFile().count, n + 1 + repetitions),
            ("package, no-sync", try NoSyncRecord.loadListFromFile().count, n + 1 + repetitions),
            ("article", try ArticleRecord.loadListFromFile().count, n + 1 + articleRepetitions),
            // An edit replaces a record: the file holds as many as it started with.
            ("package, edit in place", try IdentifiedRecord.loadListFromFile().count, n),
        ]
        for (contender, count, expected) in counts {
            try expect(
                count == expected, "append (\(contender))", "the file holds \(count) records, expected \(expected)"
            )
        }

        try Record.deleteFile()
        try NoSyncRecord.deleteFile()
        try IdentifiedRecord.deleteFile()
        for file in files {
            Sandbox.removeFile(file)
        }
        return result
    }
}
