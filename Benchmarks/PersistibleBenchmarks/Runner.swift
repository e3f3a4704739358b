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
                    if settings.only == nil {
                        try measure(plan: plan, sandbox: sandbox, into: &results)
                    }
                    if settings.only == nil || settings.only == "crowded" {
                        try measureCrowded(plan: plan, sandbox: sandbox, into: &results)
                    }
                    if settings.only == nil || settings.only == "evolution" {
                        let evolution = EvolutionWorkload(sandbox: sandbox, plan: plan)
                        for n in plan.evolutionSizes {
                            progress("evolution, n = \(formatCount(n))")
                            results.evolution.append(try evolution.run(n: n))
                        }
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
            try write(markdown: markdown, chart: LogLogChart.append(results.append).svg, to: settings.outputDirectory)
            progress("Wrote results.md and append.svg to \(settings.outputDirectory.path)")
        } catch {
            printError("FAIL: could not write the results: \(error)")
            return 1
        }

        let lossy = results.contention.filter { $0.lost > 0 }
        guard lossy.isEmpty else {
            for row in lossy {
                printError("FAIL: contention (\(row.durable ? "durable" : "no-sync")): the file kept only "
                    + "\(row.fewestFound) of \(row.appends) appended records; \(row.lost) LOST")
            }
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

        let contention = ContentionWorkload(sandbox: sandbox, plan: plan)
        progress("contention, \(plan.contentionProcesses) processes, durable")
        results.contention.append(try contention.run(ContentionRecord.self, durable: true))
        progress("contention, \(plan.contentionProcesses) processes, no-sync")
        results.contention.append(try contention.run(NoSyncContentionRecord.self, durable: false))

        let storeQuery = StoreQueryWorkload(sandbox: sandbox, plan: plan)
        for n in plan.storeQuerySizes {
            progress("store query, n = \(formatCount(n))")
            results.storeQuery.append(try storeQuery.run(n: n))
        }
        progress("store write, \(formatCount(plan.storeWriteChanges)) inserts onto \(formatCount(plan.storeWriteRecords)) records")
        results.storeWrite.append(try StoreWriteWorkload(sandbox: sandbox, plan: plan).run())
    }

    private static func measureCrowded(plan: Plan, sandbox: Sandbox, into results: inout Results) throws {
        let crowded = CrowdedWorkload(sandbox: sandbox, plan: plan)
        for durable in [false, true] {
            progress("crowded directory, \(formatCount(plan.crowdedFiles)) files, \(durable ? "durable" : "no-sync")")
            results.crowded.append(try crowded.run(durable: durable))
        }
    }

    private static func write(markdown: String, chart: String, to directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(markdown.utf8).write(to: directory.appendingPathComponent("results.md"), options: .atomic)
        try Data(chart.utf8).write(to: directory.appendingPathComponent("append.svg"), options: .atomic)
    }
}
