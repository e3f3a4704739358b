import Foundation
import Persistible

// PersonDemo: the walkthrough of "Tiny Persistence Library", and a small command line over the same file.
//
//     PersonDemo [--directory DIR]                      the walkthrough
//     PersonDemo [--directory DIR] add NAME AGE SCHOOL
//     PersonDemo [--directory DIR] remove NAME
//     PersonDemo [--directory DIR] birthday NAME
//     PersonDemo [--directory DIR] list [--older-than AGE] [--sort saved|name|age]
//     PersonDemo [--directory DIR] config [sort saved|name|age]
//     PersonDemo [--directory DIR] clear | path
//     PersonDemo [--directory DIR] watch                print the list each time it changes, until interrupted

let usage = """
    usage: PersonDemo [--directory DIR] [command]

    With no command, walks through saving and loading people as the article does.

    commands:
      add NAME AGE SCHOOL   save a person, unless saved already
      remove NAME           remove everyone with that name
      birthday NAME         add a year to everyone with that name
      list                  print everyone saved, in the order they were first saved
        --older-than AGE    only those older than AGE
        --sort ORDER        saved, name, or age (then name); the default is the sort setting
      config                print the settings
      config sort ORDER     make ORDER the order list uses when not given --sort
      clear                 delete the people's file
      path                  print where the people's file and the settings file are
      watch                 print everyone saved, and again after every change by any
                            program, until interrupted (Control-C)

    options:
      --directory DIR       keep both files in DIR instead of the default directories
    """

struct UsageError: Error {
    let message: String
}

func parse(_ arguments: [String]) throws(UsageError) -> (directory: URL?, command: [String]) {
    var directory: URL?
    var command: [String] = []
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
        switch argument {
        case "--directory":
            guard let value = remaining.popFirst(), !value.isEmpty else {
                throw UsageError(message: "--directory needs a directory")
            }
            directory = URL(fileURLWithPath: value, isDirectory: true)
        case "-h", "--help":
            print(usage)
            exit(0)
        default:
            command.append(argument)
        }
    }
    return (directory, command)
}

func walkThrough() throws {
    let sam = Person(name: "Samuel", age: 35, school: "Accra Academy")
    let amy = Person(name: "Amy", age: 25, school: "Accra Girls")
    let maame = Person(name: "Maame", age: 25, school: "Accra High")

    if try [sam, amy].saveToFile() > 0 {
        print("Saved Samuel and Amy.")
    } else {
        print("Samuel and Amy are already saved")
    }
    try add(sam)
    try add(maame)

    try Person.load { data in
        switch data {
        case .single(let val):
            print("The file holds one person: \(val.name), \(val.age), \(val.school)")
        case .array(let values):
            print("The file holds \(values.count) people: \(values.map(\.name).joined(separator: ", "))")
        }
    }
    print("The file is \(Person.archiveUrl.path)")
}

func run(_ command: [String]) throws {
    switch command.first {
    case nil:
        try walkThrough()
    case "add":
        guard command.count == 4, let age = Int(command[2]), age >= 0 else {
            throw UsageError(message: "add takes a NAME, an AGE (a whole number) and a SCHOOL")
        }
        try add(Person(name: command[1], age: age, school: command[3]))
    case "remove":
        guard command.count == 2 else { throw UsageError(message: "remove takes a NAME") }
        let name = command[1]
        guard try Person.removeFromFile(where: { $0.name == name }) > 0 else { throw NotFound(name: name) }
    case "birthday":
        guard command.count == 2 else { throw UsageError(message: "birthday takes a NAME") }
        try birthday(of: command[1])
    case "config":
        try configure(Array(command.dropFirst()))
    case "list":
        try list(options: Array(command.dropFirst()))
    case "clear":
        guard command.count == 1 else { throw UsageError(message: "clear takes no arguments") }
        try Person.deleteFile()
    case "watch":
        guard command.count == 1 else { throw UsageError(message: "watch takes no arguments") }
        watch()
    case "path":
        guard command.count == 1 else { throw UsageError(message: "path takes no arguments") }
        print(Person.archiveUrl.path)
        print(DemoSettings.archiveUrl.path)
    case let unknown?:
        throw UsageError(message: "unknown command '\(unknown)'")
    }
}

/// Saves `person`, and says whether the file held them already.
func add(_ person: Person) throws {
    if try person.saveToFile() {
        print("Saved \(person.name).")
    } else {
        print("\(person.name) is already saved")
    }
}

/// Adds a year to everyone named `name`, reading and writing the list in one step under its lock: a load and a save
/// made one after the other would let two birthdays at once count as one.
func birthday(of name: String) throws {
    let ages = try Person.updateList { people in
        people = people.map { person in
            person.name == name ? Person(name: person.name, age: person.age + 1, school: person.school) : person
        }
        return people.filter { $0.name == name }.map(\.age)
    }
    guard !ages.isEmpty else { throw NotFound(name: name) }
    print("Happy birthday, \(name): \(ages.map(String.init).joined(separator: ", ")).")
}

func configure(_ arguments: [String]) throws {
    switch arguments.count {
    case 0:
        let settings = try DemoSettings.loadFromFile(default: DemoSettings())
        print("sort \(settings.sort)")
    case 2 where arguments[0] == "sort":
        let order = arguments[1]
        guard DemoSettings.sortOrders.contains(order) else {
            throw UsageError(message: "config sort takes saved, name or age")
        }
        let settings = try DemoSettings.update(default: DemoSettings()) { $0.sort = order }
        print("sort \(settings.sort)")
    default:
        throw UsageError(message: "config takes nothing, or sort and an ORDER")
    }
}

struct NotFound: Error, CustomStringConvertible {
    let name: String
    var description: String { "no one named '\(name)' is saved" }
}

func list(options: [String]) throws {
    var olderThan = -1
    var sort: String?
    var remaining = options[...]
    while let option = remaining.popFirst() {
        switch option {
        case "--older-than":
            guard let value = remaining.popFirst().flatMap(Int.init) else {
                throw UsageError(message: "--older-than needs an AGE (a whole number)")
            }
            olderThan = value
        case "--sort":
            guard let value = remaining.popFirst(), DemoSettings.sortOrders.contains(value) else {
                throw UsageError(message: "--sort takes saved, name or age")
            }
            sort = value
        default:
            throw UsageError(message: "list does not take '\(option)'")
        }
    }
    var query = FileStore<Person>().filter(where: \.age > olderThan)
    switch try sort ?? DemoSettings.loadFromFile(default: DemoSettings()).sort {
    case "name": query = query.sorted(by: \.name)
    case "age": query = query.sorted(by: \.age).sorted(by: \.name)
    default: break
    }
    for person in try query.result() {
        print("\(person.name)\t\(person.age)\t\(person.school)")
    }
}

/// Prints the list each time the file changes, until SIGINT, then returns so that the program exits normally.
func watch() {
    let changes = Person.changes()
    // The signal is taken from its default action, which would kill the process, and handed to a dispatch source.
    signal(SIGINT, SIG_IGN)
    let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    let finished = DispatchSemaphore(value: 0)
    let watcher = Task {
        for await change in changes {
            switch change {
            case .contents(let data):
                standardOutput(data.values.map { "\($0.name)\t\($0.age)\t\($0.school)\n" }.joined() + "--")
            case .noFile:
                standardOutput("(no one is saved)\n--")
            case .failure(let error):
                standardError("PersonDemo: \(error.localizedDescription)")
            }
        }
        finished.signal()
    }
    interrupt.setEventHandler { watcher.cancel() }
    interrupt.resume()
    finished.wait()
    interrupt.cancel()
}

/// Writes a line at once, even when standard output is a pipe, which `print` would buffer.
func standardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func standardError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

do {
    let (directory, command) = try parse(Array(CommandLine.arguments.dropFirst()))
    if let directory {
        try DemoLocation.$directory.withValue(directory) {
            try withArchiveDirectory(directory) { try run(command) }
        }
    } else {
        try run(command)
    }
} catch let error as UsageError {
    standardError("PersonDemo: \(error.message)")
    standardError(usage)
    exit(2)
} catch let error as NotFound {
    standardError("PersonDemo: \(error)")
    exit(1)
} catch {
    standardError("PersonDemo: \(error.localizedDescription)")
    exit(1)
}
