import Foundation

// swift run -c release PersistibleBenchmarks [--quick] [--output DIR]
//
// Every workload is timed against its references in this one process, their repetitions interleaved, so that the
// ratios survive a noisy machine even when the absolute times do not.

let command: Command
do {
    command = try Command(parsing: Array(CommandLine.arguments.dropFirst()))
} catch {
    printError("\(error)\n\(Command.usage)")
    exit(2)
}

switch command {
case .help:
    print(Command.usage)
case .benchmark(let settings):
    exit(Runner.run(settings))
case .childAppend(let child):
    exit(ChildAppender.run(child))
case .childSave(let directory):
    exit(ChildSaver.run(directory: directory))
}
