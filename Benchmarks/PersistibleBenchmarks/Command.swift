import Foundation

/// What the command line asks for: the benchmarks, or one of the child processes that the contention and watch
/// workloads start.
enum Command {
    case help
    case benchmark(Settings)
    case childAppend(ChildAppender.Arguments)
    case childSave(URL)

    static let usage = """
        usage: PersistibleBenchmarks [--quick] [--only shapes|command|evolution|stores] [--output DIR]
          --quick          fewer repetitions and smaller files: a smoke test of a few seconds
          --only shapes    only the section "Document shapes", to compare decoders in a minute
          --only command   only the section "A command-line call"
          --only evolution only the section "Model evolution"
          --only stores    only the section "Stores"
          --output DIR     where results.md and append.svg go (default: .build/benchmarks)
        """

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    init(parsing arguments: [String]) throws {
        // The child mode is hidden from the usage text: only this executable starts it, with arguments it made.
        if arguments.first == "--child-save" {
            guard arguments.count == 2 else { throw UsageError(description: "--child-save expects DIR") }
            self = .childSave(URL(fileURLWithPath: arguments[1], isDirectory: true))
            return
        }
        if arguments.first == "--child-append" {
            let rest = Array(arguments.dropFirst())
            guard rest.count == 3, let count = Int(rest[2]), count >= 0 else {
                throw UsageError(description: "--child-append expects DIR PREFIX COUNT")
            }
            self = .childAppend(ChildAppender.Arguments(
                directory: URL(fileURLWithPath: rest[0], isDirectory: true), prefix: rest[1], count: count
            ))
            return
        }

        var settings = Settings()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--quick":
                settings.quick = true
            case "--only":
                guard let section = remaining.popFirst().flatMap(Settings.Section.init(rawValue:)) else {
                    throw UsageError(description: "--only expects a section: shapes, command, evolution or stores")
                }
                settings.only = section
            case "--output":
                guard let directory = remaining.popFirst() else {
                    throw UsageError(description: "--output expects a directory")
                }
                settings.outputDirectory = URL(fileURLWithPath: directory, isDirectory: true)
            case "--help", "-h":
                self = .help
                return
            default:
                throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        self = .benchmark(settings)
    }
}

struct Settings {
    var quick = false
    /// The one section to run, or `nil` for all.
    var only: Section?

    enum Section: String {
        case shapes, command, evolution, stores
    }
    var outputDirectory = URL(fileURLWithPath: ".build/benchmarks", isDirectory: true)

    var plan: Plan { Plan(quick: quick) }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
