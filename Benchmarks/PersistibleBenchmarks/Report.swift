import Foundation

/// The results as markdown: one table per workload, medians and ratios side by side.
struct Report {
    let results: Results

    var markdown: String {
        var lines: [String] = []
        lines += header
        lines += bulkSection
        lines += shapesSection
        lines += appendSection
        lines += contentionSection
        lines += storesSection
        lines += cloneAppendSection
        lines += evolutionTables
        lines += watchSection
        lines += coldCommandSection
        return lines.joined(separator: "\n") + "\n"
    }

    private var header: [String] {
        let date = ISO8601DateFormatter().string(from: results.started)
        let processors = ProcessInfo.processInfo.activeProcessorCount
        let elapsed = results.elapsedSeconds < 60
            ? "\(threeDigits(results.elapsedSeconds)) s"
            : "\(Int(results.elapsedSeconds) / 60) min \(Int(results.elapsedSeconds) % 60) s"
        return [
            "# Persistible benchmarks",
            "",
            "Run: \(results.plan.name), \(date), \(processors) processors, \(elapsed).",
            "",
            "Each cell is the median of the repetitions, ± the median absolute deviation as a share of it. Package and",
            "references ran interleaved in one process; a ratio is the package's median over the reference's, so",
            "below 1× the package is faster. Only the ratios are meant to be compared between machines.",
        ]
    }

    private var bulkSection: [String] {
        guard !results.bulk.isEmpty else { return [] }
        var lines = [
            "",
            "## Bulk: save n records onto a missing file, load them back",
            "",
            "Reference: `JSONEncoder` (pretty-printed, sorted keys) and `Data.write(to:options: .atomic)`, which flushes",
            "the file before renaming it but never the directory; `Data(contentsOf:)` and `JSONDecoder`. A cold load",
            "follows `clearArchiveCache()`; a warm one follows the cold one. The rows \"reference + fsync dir\" compare",
            "the same durable saves with a reference that also flushes the directory, as a durable save must.",
            "",
            "| Workload | n | Package | Foundation | Ratio | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.bulk {
            lines.append(tableRow([
                row.operation.rawValue, formatCount(row.n), cell(row.package), cell(row.reference),
                formatRatio(ratio(row.package, row.reference)), "\(row.package.count)",
            ]))
        }
        return lines
    }

    private var shapesSection: [String] {
        guard !results.shapes.isEmpty else { return [] }
        var lines = [
            "",
            "## Document shapes: load n records of each shape",
            "",
            "Files of about \(results.plan.shapeFileBytes / 1_000_000) MB, saved by the package itself, of shapes",
            "other than the four-field records: `numbers` (100 `Double` and 100 `Int` a record), `sparse` (nested",
            "objects whose optional fields are about half nil, left out or written as `null`), `dictionary` (a",
            "`[String: Int]` of 60 keys and a `[String: String]` of 20), `text` (long accented, CJK and emoji strings",
            "with quotes, backslashes, line breaks, tabs and control characters). A cold load (`clearArchiveCache()`,",
            "then `loadListFromFile()`) against `Data(contentsOf:)` and `JSONDecoder().decode` of the same file; both",
            "loaded every record, and the saved values in the first round. Target: at most 0.5×.",
            "",
            "| Shape | n | File | Package | Foundation | Ratio | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.shapes {
            lines.append(tableRow([
                row.shape, formatCount(row.n), threeDigits(Double(row.fileBytes) / 1e6) + " MB", cell(row.package),
                cell(row.reference), formatRatio(ratio(row.package, row.reference)), "\(row.package.count)",
            ]))
        }
        return lines
    }

    private var appendSection: [String] {
        guard !results.append.isEmpty else { return [] }
        var lines = [
            "",
            "## Append one new value to a file of n records",
            "",
            "References: the article's algorithm (`ArticleReference.swift`: decode as one value, fail, decode twice as",
            "an array, merge through a `Set`, encode everything, write in place; it never flushes, so the same",
            "measurement serves both rows of a size) and the I/O floor (`IOFloor.swift`: rewrite the file's bytes",
            "through a temporary file, flushed, and a rename, flushing the directory too when durable).",
            "",
            "| Workload | n | Package | Article | Package / article | I/O floor | Package / floor | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for durable in [true, false] {
            for row in results.append {
                let package = durable ? row.packageDurable : row.packageNoSync
                let floor = durable ? row.floorDurable : row.floorNoSync
                lines.append(tableRow([
                    durable ? "append, durable" : "append, no-sync", formatCount(row.n),
                    cell(package), cell(row.article), formatRatio(ratio(package, row.article)),
                    cell(floor), formatRatio(ratio(package, floor)),
                    "\(package.count) / \(row.article.count) / \(floor.count)",
                ]))
            }
        }
        lines += [
            "",
            "Against the durable append: a no-sync append, which flushes the new file's data before the rename as a",
            "durable one does, so that a power loss leaves one saved version or another, but skips the directory's",
            "flush (and on Linux flushes with `fdatasync` rather than `fsync`), so a power loss may bring back an older",
            "version; and a durable save of a value the file holds already, which writes nothing but flushes the file",
            "and its directory as it finds them, so that a retry in a new process makes good a flush an earlier save",
            "failed.",
            "",
            "| n | Append, durable | Append, no-sync | No-sync / durable | Stored value, durable | Stored / append |",
            "| ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.append {
            lines.append(tableRow([
                formatCount(row.n), cell(row.packageDurable), cell(row.packageNoSync),
                formatRatio(ratio(row.packageNoSync, row.packageDurable)), cell(row.unchangedDurable),
                formatRatio(ratio(row.unchangedDurable, row.packageDurable)),
            ]))
        }
        lines += ["", "![Time per append against n](append.svg)"]
        lines += [
            "",
            "### `Identifiable` records, no-sync",
            "",
            "A save of an `Identifiable` record replaces the stored record with the same `id`. The record in the middle",
            "of the file is edited and saved, which rewrites the whole file, against the no-sync I/O floor.",
            "",
            "| Workload | n | Identifiable | Reference | Ratio | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.append {
            lines.append(tableRow([
                "edit in place, against the I/O floor", formatCount(row.n), cell(row.editNoSync),
                cell(row.floorNoSync), formatRatio(ratio(row.editNoSync, row.floorNoSync)),
                "\(row.editNoSync.count)",
            ]))
        }
        return lines
    }

    private var contentionSection: [String] {
        guard let row = results.contention else { return [] }
        let perAppend = Double(row.appends)
        return [
            "",
            "## Contention: \(row.processes) processes appending to one file at once",
            "",
            "Each process appends \(formatCount(row.appendsPerProcess)) new values, one save each, starting together",
            "from a missing file. Reference: one process making all the appends alone. Time is per append, the",
            "total time divided by the number of appends.",
            "",
            "| Workload | n (appends) | Package, \(row.processes) processes | One process | Ratio | Appends/s, \(row.processes) processes | Appends/s, one process | Records kept | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
            tableRow([
                "contention, durable", formatCount(row.appends),
                cell(row.concurrent, dividedBy: perAppend), cell(row.sequential, dividedBy: perAppend),
                formatRatio(ratio(row.concurrent, row.sequential)),
                formatCount(Int((perAppend / row.concurrent.median).rounded())),
                formatCount(Int((perAppend / row.sequential.median).rounded())),
                row.lost == 0 ? "all \(formatCount(row.appends))" : "**\(formatCount(row.fewestFound)) — LOST \(row.lost)**",
                "\(row.concurrent.count)",
            ]),
        ]
    }

    private var storesSection: [String] {
        guard !results.storeQuery.isEmpty || !results.storeWrite.isEmpty else { return [] }
        return ["", "## Stores"] + storeQueryTable + storeWriteTable
    }

    private var storeQueryTable: [String] {
        guard !results.storeQuery.isEmpty else { return [] }
        var lines = [
            "",
            "### Query: filter and sort n records",
            "",
            "`store.filter(where: \\.rating == .PG_13 && \\.budget >= 10_000_000).sorted(by: \\.title).result()` on a",
            "`FileStore` whose cache is warm (one `all()` ran first) and on a `MemoryStore`, over n movies with varied,",
            "distinct titles. Reference: `Array.filter` and `sorted` with closures on the same records already in an",
            "array, `movies.filter { $0.rating == .PG_13 && $0.budget >= 10_000_000 }.sorted { $0.title < $1.title }`.",
            "Every repetition's result was checked to be the reference's array. Target: within 1.5× of the reference.",
            "",
            "| Workload | n | Selected | Package | Array | Ratio | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for memory in [false, true] {
            for row in results.storeQuery {
                let package = memory ? row.memoryStore : row.fileStore
                lines.append(tableRow([
                    memory ? "query, MemoryStore" : "query, FileStore (warm)", formatCount(row.n),
                    "\(formatCount(row.selected)) (\(Int((Double(row.selected) / Double(row.n) * 100).rounded()))%)",
                    cell(package), cell(row.reference), formatRatio(ratio(package, row.reference)), "\(package.count)",
                ]))
            }
        }
        return lines
    }

    private var storeWriteTable: [String] {
        guard let first = results.storeWrite.first else { return [] }
        var lines = [
            "",
            "### Write block: \(formatCount(first.changes)) inserts in one write, against one write each",
            "",
            "A durable `FileStore` on a fresh file of \(formatCount(first.records)) records, its cache warm, gets",
            "\(formatCount(first.changes)) new records: all in one `store.write { writer in for movie in new { writer.insert(movie) } }`,",
            "or with one `store.insert(movie)` each. The fresh file is made outside the timed region; after each",
            "contender the file was read back with `JSONDecoder` and held all \(formatCount(first.records + first.changes)) records.",
            "The last column is one single insert: the single inserts' time over their number.",
            "",
            "| Workload | n (inserts) | Write block | Single inserts | Ratio | One single insert | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.storeWrite {
            lines.append(tableRow([
                "write block, durable", formatCount(row.changes), cell(row.block), cell(row.singles),
                formatRatio(ratio(row.block, row.singles)), cell(row.singles, dividedBy: Double(row.changes)),
                "\(row.block.count)",
            ]))
        }
        return lines
    }

    private var cloneAppendSection: [String] {
        guard !results.cloneAppend.isEmpty || !results.cloneAppendSkipped.isEmpty else { return [] }
        var lines = [
            "",
            "## Durable append by file system",
            "",
            "One durable append (`saveToFile()` of one new value, cache warm) onto a file of n records, on the",
            "sandbox's own file system and on a loop-mounted XFS with reflink, where the package clones the file and",
            "writes only its new end. References, interleaved with it: the whole-file rewrite (`IOFloor`: write all",
            "the bytes to a temporary, fsync, rename, fsync the directory, as every append cost before cloning); the",
            "in-place floor (`pwrite` of the same new end onto the file itself and `fdatasync`: no atomicity, the",
            "least an append can cost); on the file system that clones, the bare clone sequence (clone the whole",
            "blocks before the new end, set the length, write the rest, fsync, rename, fsync the directory: the",
            "package's append without the package); SQLite through python3's `sqlite3` module in a child process,",
            "the same records, `synchronous=FULL`, one insert per transaction, timed in the child. The cold append",
            "is the first save after `clearArchiveCache()`, as in a process that saves once: it decodes the file.",
            "",
            "The rewrite runs in a phase of its own, interleaved with a second series of the package's appends (the",
            "first Package column): at 100,000 records it leaves 10 MB to write back after each round, which would",
            "slow whichever contender ran next. The other references are interleaved with the second Package column.",
            "",
            "| File system | n | Package | Rewrite | Package / rewrite | Package | In place | Package / in place | Bare clone | Package / bare clone | Bare clone / in place | SQLite WAL | SQLite DELETE | Cold | Reps |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.cloneAppend {
            lines.append(tableRow([
                row.volume, formatCount(row.n), cell(row.packageBesideRewrite), cell(row.rewriteFloor),
                formatRatio(ratio(row.packageBesideRewrite, row.rewriteFloor)), cell(row.package),
                cell(row.inPlaceFloor),
                formatRatio(ratio(row.package, row.inPlaceFloor)), cell(row.bareClone),
                formatRatio(ratio(row.package, row.bareClone)), formatRatio(ratio(row.bareClone, row.inPlaceFloor)),
                cell(row.sqliteWAL), cell(row.sqliteDelete),
                cell(row.packageCold), "\(row.package.count) / \(row.packageCold.count)",
            ]))
        }
        for (volume, reason) in results.cloneAppendSkipped.sorted(by: { $0.key < $1.key }) {
            lines += ["", "\(volume): skipped: \(reason)"]
        }
        if let skipped = results.cloneAppend.compactMap(\.sqliteSkipped).first {
            lines += ["", "SQLite: skipped: \(skipped)"]
        }
        // The targets, each the package against itself or a reference measured in this same run.
        var targets: [String] = []
        let volumes = results.cloneAppend.map(\.volume).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for volume in volumes {
            let rows = results.cloneAppend.filter { $0.volume == volume }
            guard let small = rows.first, let large = rows.last, large.n > small.n else { continue }
            let growth = formatRatio(ratio(large.package, small.package))
            let overFloor = formatRatio(ratio(large.package, large.inPlaceFloor))
            let overRewrite = rows.map { formatRatio(ratio($0.packageBesideRewrite, $0.rewriteFloor)) }
            targets.append(
                "- \(volume): an append at \(formatCount(large.n)) records costs \(growth) the one at"
                    + " \(formatCount(small.n)), and \(overFloor) the in-place floor; package / rewrite"
                    + " \(overRewrite.joined(separator: ", "))."
            )
        }
        if !targets.isEmpty {
            lines += [""] + targets
        }
        lines += ["", "![Time per durable append against n, by file system](append-by-file-system.svg)"]
        lines += grownFileSection
        return lines
    }

    private var grownFileSection: [String] {
        guard let grown = results.grownFile else { return [] }
        return [
            "",
            "### Appends onto a file grown by appends (XFS with reflink)",
            "",
            "A file of \(formatCount(grown.seed)) records grown by \(formatCount(grown.appends)) no-sync appends, one",
            "record each. Each append writes its last block to a new place; the package writes the small extents",
            "before it again, so that the file stays in few extents and a clone, which costs a step per extent, does",
            "not slow down. The first and the last \(formatCount(grown.first.count)) of those appends, then durable",
            "appends onto the grown file interleaved with the in-place floor.",
            "",
            "| First appends, no-sync | Last appends, no-sync | Last / first | Extents | Durable append | In place | Durable / in place | Extents after | Reps |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
            tableRow([
                cell(grown.first), cell(grown.last), formatRatio(ratio(grown.last, grown.first)), "\(grown.extents)",
                cell(grown.package), cell(grown.inPlaceFloor), formatRatio(ratio(grown.package, grown.inPlaceFloor)),
                "\(grown.extentsAfter)", "\(grown.package.count)",
            ]),
        ]
    }

    private var evolutionTables: [String] {
        guard !results.evolution.isEmpty else { return [] }
        var lines = [
            "",
            "## Model evolution",
            "",
            "Cold loads (cache cleared) of n records: a type without defaults on the complete file; a type that",
            "declares `archiveDefaults` on the same file; and that type on a file whose records all lack `age`, which",
            "each get it from the defaults. Then a durable `FileStore.update` of one record in n, cache warm, against",
            "the I/O floor: writing the file's bytes to a temporary, flushing it, renaming it over the file and",
            "flushing the directory. Targets: filling at most 2x the plain load, the update at most 1.5x the floor.",
            "",
            "| n | Plain load | Declaring defaults | Filling every record | Fill ratio | Update one | I/O floor | Update ratio | Reps |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.evolution {
            lines.append(tableRow([
                formatCount(row.n), cell(row.loadComplete), cell(row.loadDeclaringDefaults),
                cell(row.loadFillingDefaults), formatRatio(ratio(row.loadFillingDefaults, row.loadComplete)),
                cell(row.updateOne), cell(row.rewriteFloor), formatRatio(ratio(row.updateOne, row.rewriteFloor)),
                "\(row.updateOne.count)",
            ]))
        }
        return lines
    }

    private var watchSection: [String] {
        guard let watch = results.watch else { return [] }
        return [
            "",
            "## Watching: from another process's save to the element",
            "",
            "A child process saves one record at a time (without flushing, so its save returns once the file is in",
            "place) and notes when the save returned; `changes()` in this process notes when the element holding it",
            "arrived; both read the monotonic clock. A negative time means the element arrived before the save had",
            "returned: the rename that makes the change visible comes before the save's last steps. \"From the",
            "request\" counts from this process asking the child to save, so it includes the whole save and a pipe",
            "round trip: an upper bound. Spaced saves come \(formatDuration(watch.spacing)) apart, each the first",
            "change after a quiet spell; back-to-back saves follow each element at once, with a coalescing interval",
            "of zero (with the default, 20 ms, a save within 20 ms of the previous read waits for the rest of it).",
            "",
            "| Saves | From the save returning: median | p99 | From the request: median | p99 | Saves |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
            latencyRow("spaced, default coalescing", watch.quiet),
            latencyRow("back to back, no coalescing", watch.burst),
        ]
    }

    private var coldCommandSection: [String] {
        var lines = [
            "",
            "## A command-line call: a new process each time, the file read cold",
            "",
            "A tool on the package (`PersistibleColdTool`: the package and `FoundationEssentials`, `Identifiable`",
            "records of four fields, durable saves) started once per call, as a user runs one: `add` appends one",
            "record, `edit` saves a stored `id` with another name, `count` loads every record, `lookup` loads the",
            "record of one `id`. Beside it, each in a process",
            "of its own: Foundation alone decoding the same file with `JSONDecoder`; the `sqlite3` shell inserting",
            "one row into a table of n (rollback journal, full synchronous); and the floors, programs that decode",
            "one small value, importing `Foundation` or `FoundationEssentials`. \"In-process append\" is the same",
            "append in this process, its file loaded already. Each time runs from `posix_spawn` to `waitpid`. The",
            "lookups, compared across sizes, run after every size's file is made, the sizes interleaved.",
        ]
        if let skipped = results.coldCommandSkipped { return lines + ["", "Skipped: \(skipped)."] }
        guard !results.coldCommand.isEmpty else { return [] }
        lines += [
            "",
            "| n | `add` | `edit` | `count` | `lookup` | Foundation decode | In-process append | `sqlite3` insert "
                + "| Hello, Foundation | Hello, Essentials | Reps |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in results.coldCommand {
            lines.append(tableRow([
                formatCount(row.n), cell(row.add), cell(row.edit), cell(row.count), cell(row.lookup),
                cell(row.foundationDecode),
                cell(row.inProcessAppend), cell(row.sqliteInsert), cell(row.helloFoundation),
                cell(row.helloEssentials), "\(row.add.count)",
            ]))
        }
        lines += [
            "",
            "Ratios: `add` over the Foundation hello plus twice the in-process append (target: at most 1×);",
            "`count` over Foundation's decode (target: at most 0.5×); `lookup` over `lookup` at the smallest n (target",
            "at 100,000: at most 3×); `add` over the `sqlite3` insert; `edit` over `add`, which reads and writes as much.",
            "",
            "| n | `add` / (hello + 2 × append) | `count` / Foundation | `lookup` / smallest | `add` / `sqlite3` "
                + "| `edit` / `add` |",
            "| ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        let smallest = results.coldCommand[0].lookup
        for row in results.coldCommand {
            let floor = row.helloFoundation.median + 2 * row.inProcessAppend.median
            lines.append(tableRow([
                formatCount(row.n), formatRatio(row.add.median / floor),
                formatRatio(ratio(row.count, row.foundationDecode)), formatRatio(ratio(row.lookup, smallest)),
                formatRatio(ratio(row.add, row.sqliteInsert)), formatRatio(ratio(row.edit, row.add)),
            ]))
        }
        if let one = results.coldOneRecord {
            lines += [
                "",
                "The tool's `count` of a file of one record, against the floors (target: within 1 ms of the",
                "`FoundationEssentials` hello):",
                "",
                "| Tool, one record | Hello, Essentials | Hello, Foundation | Tool − Essentials hello | Reps |",
                "| ---: | ---: | ---: | ---: | ---: |",
                tableRow([
                    cell(one.toolLoad), cell(one.helloEssentials), cell(one.helloFoundation),
                    formatDuration(one.toolLoad.median - one.helloEssentials.median), "\(one.toolLoad.count)",
                ]),
            ]
        }
        return lines
    }

    private func latencyRow(_ name: String, _ samples: LatencySamples) -> String {
        tableRow([
            name, formatDuration(samples.fromReturn.median), formatDuration(samples.fromReturn.percentile(0.99)),
            formatDuration(samples.fromRequest.median), formatDuration(samples.fromRequest.percentile(0.99)),
            "\(samples.fromReturn.count)",
        ])
    }

    private func cell(_ samples: Samples, dividedBy divisor: Double = 1) -> String {
        guard samples.count > 0 else { return "–" }
        return "\(formatDuration(samples.median / divisor)) ±\(Int((samples.relativeSpread * 100).rounded()))%"
    }

    private func tableRow(_ cells: [String]) -> String {
        "| " + cells.joined(separator: " | ") + " |"
    }
}
