import Foundation
import Persistible

/// Runs every workload in a fresh sandbox, then reports.
enum Runner {
    static func run(_ settings: Settings) -> Int32 {
        let plan = settings.plan
        let sandbox: Sandbox
        do {
            sandbox = try Sandbox()
        } catch {
            printError("FAIL: \(error)")
            return 1
        }
        defer { sandbox.remove() }
        progress("Persistible benchmarks (\(plan.name) run), files in \(sandbox.url.path)")

        var results = Results(plan: plan)
        let clock = ContinuousClock()
        let started = clock.now
        do {
            // Both the package and the article's reference write into the sandbox, and nowhere else.
            try withArchiveDirectory(sandbox.url) {
                try ArticleSandbox.$directory.withValue(sandbox.url) {
                    switch settings.only {
                    case nil:
                        try measure(plan: plan, sandbox: sandbox, into: &results)
                        // Last, so that the sections measured before it run as they did before it existed.
                        results.shapes = try ShapesWorkload(plan: plan).run()
                    case .shapes:
                        results.shapes = try ShapesWorkload(plan: plan).run()
                    case .command:
                        try measureColdCommands(plan: plan, sandbox: sandbox, into: &results)
                    case .evolution:
                        try measureEvolution(plan: plan, sandbox: sandbox, into: &results)
                    case .stores:
                        try measureStores(plan: plan, sandbox: sandbox, into: &results)
                    }
                }
            }
        } catch {
            printError("FAIL: \(error)")
            return 1
        }
        results.elapsedSeconds = (clock.now - started).seconds

        let markdown = Report(results: results).markdown
        print(markdown)
        do {
            try write(
                markdown: markdown,
                charts: [
                    "append.svg": LogLogChart.append(results.append).svg,
                    "append-by-file-system.svg": LogLogChart.appendByFileSystem(results.cloneAppend).svg,
                ],
                to: settings.outputDirectory
            )
            progress("Wrote results.md, append.svg and append-by-file-system.svg to \(settings.outputDirectory.path)")
        } catch {
            printError("FAIL: could not write the results: \(error)")
            return 1
        }

        if let row = results.contention, row.lost > 0 {
            printError("FAIL: contention: the file kept only \(row.fewestFound) of \(row.appends) appended records; "
                + "\(row.lost) LOST")
            return 1
        }
        return 0
    }

    private static func measure(plan: Plan, sandbox: Sandbox, into results: inout Results) throws {
        let bulk = BulkWorkload(sandbox: sandbox, plan: plan)
        for n in plan.bulkSizes {
            progress("bulk, n = \(formatCount(n))")
            results.bulk += try bulk.run(n: n)
        }
        // Grouped by operation, so that the table reads down one operation's sizes.
        results.bulk.sort { ($0.operation.order, $0.n) < ($1.operation.order, $1.n) }

        let append = AppendWorkload(sandbox: sandbox, plan: plan)
        for n in plan.appendSizes {
            progress("append, n = \(formatCount(n))")
            results.append.append(try append.run(n: n))
        }

        progress("contention, \(plan.contentionProcesses) processes, durable")
        results.contention = try ContentionWorkload(sandbox: sandbox, plan: plan).run()

        try measureStores(plan: plan, sandbox: sandbox, into: &results)

        try measureCloneAppends(plan: plan, sandbox: sandbox, into: &results)

        results.watch = try WatchWorkload(sandbox: sandbox, plan: plan).run()

        try measureEvolution(plan: plan, sandbox: sandbox, into: &results)
        try measureColdCommands(plan: plan, sandbox: sandbox, into: &results)
    }

    private static func measureStores(plan: Plan, sandbox: Sandbox, into results: inout Results) throws {
        let storeQuery = StoreQueryWorkload(sandbox: sandbox, plan: plan)
        for n in plan.storeQuerySizes {
            progress("store query, n = \(formatCount(n))")
            results.storeQuery.append(try storeQuery.run(n: n))
        }
        progress("store write, \(formatCount(plan.storeWriteChanges)) inserts onto \(formatCount(plan.storeWriteRecords)) records")
        results.storeWrite.append(try StoreWriteWorkload(sandbox: sandbox, plan: plan).run())
    }

    private static func measureEvolution(plan: Plan, sandbox: Sandbox, into results: inout Results) throws {
        let evolution = EvolutionWorkload(sandbox: sandbox, plan: plan)
        for n in plan.evolutionSizes {
            progress("evolution, n = \(formatCount(n))")
            results.evolution.append(try evolution.run(n: n))
        }
    }

    /// The command-line section, if the programs it starts were built.
    private static func measureColdCommands(plan: Plan, sandbox: Sandbox, into results: inout Results) throws {
        let tools: ColdTools
        do {
            tools = try ColdTools()
        } catch {
            progress("command line: skipped: \(error)")
            results.coldCommandSkipped = "\(error)"
            return
        }
        let workload = ColdCommandWorkload(sandbox: sandbox, plan: plan, tools: tools)
        for n in plan.coldCommandSizes {
            progress("command line, n = \(formatCount(n))")
            results.coldCommand.append(try workload.run(n: n))
        }
        progress("command line, lookups at every n")
        try workload.measureLookups(&results.coldCommand)
        progress("command line, a file of one record")
        results.coldOneRecord = try workload.runOneRecord()
    }

    /// The append workload on the sandbox's own file system and on a mounted XFS with reflink, where saves clone.
    private static func measureCloneAppends(plan: Plan, sandbox: Sandbox, into results: inout Results) throws {
        func run(volume: String, directory: URL) throws {
            for n in plan.cloneAppendSizes {
                progress("append by file system, \(volume), n = \(formatCount(n))")
                let workload = CloneAppendWorkload(volume: volume, directory: directory, plan: plan)
                results.cloneAppend.append(try withArchiveDirectory(directory) { try workload.run(n: n) })
            }
        }
        let ordinary = sandbox.file("ordinary")
        try FileManager.default.createDirectory(at: ordinary, withIntermediateDirectories: false)
        try run(volume: fileSystemName(of: ordinary.path), directory: ordinary)

        let image: XFSImage
        do {
            image = try XFSImage(in: sandbox)
        } catch {
            progress("append by file system, XFS with reflink: skipped: \(error)")
            results.cloneAppendSkipped["XFS with reflink"] = "\(error)"
            return
        }
        // Unmounted before the sandbox is removed, whatever happens: removing it mounted would empty the image.
        defer { image.unmount() }
        try run(volume: "XFS (reflink)", directory: image.root)
        progress("appends onto a file grown by \(formatCount(plan.grownFileAppends)) appends, XFS (reflink)")
        results.grownFile = try withArchiveDirectory(image.root) {
            try GrownFileWorkload(directory: image.root, plan: plan).run()
        }
    }

    /// The file system's type as `findmnt` names it, such as "ext4".
    private static func fileSystemName(of path: String) -> String {
        let name = (try? runTool("/usr/bin/findmnt", ["-n", "-o", "FSTYPE", "-T", path]))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return name.isEmpty ? "the sandbox's file system" : name
    }

    private static func write(markdown: String, charts: [String: String], to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(markdown.utf8).write(to: directory.appendingPathComponent("results.md"), options: .atomic)
        for (name, chart) in charts {
            try Data(chart.utf8).write(to: directory.appendingPathComponent(name), options: .atomic)
        }
    }
}
