import Foundation
import Persistible

// MARK: - The records

/// A film, shaped like the store documentation's examples: what the store workloads keep.
struct Movie: Codable, Hashable, Identifiable, Sendable {
    enum Rating: String, Codable, Hashable, Sendable {
        case G, PG, PG_13 = "PG-13", R, NC_17 = "NC-17"
    }

    var id: Int
    var title: String
    var rating: Rating
    var budget: Int
}

/// The same films on every run: a fixed seed, a fixed generator, no `SystemRandomNumberGenerator`.
enum MovieCatalog {
    /// The films with identifiers `0..<count`; every title is distinct, so a sort by title has one right answer.
    ///
    /// About 40% are rated PG-13 and about 68% cost at least 10,000,000, independently, so the query's filter
    /// keeps about 27%.
    static func movies(count: Int) -> [Movie] {
        var generator = SplitMix64(seed: 0x5EED_F11B)
        var seen = Set<String>(minimumCapacity: count)
        var movies: [Movie] = []
        movies.reserveCapacity(count)
        for id in 0..<count {
            var title = makeTitle(&generator)
            if !seen.insert(title).inserted {
                // A sequel, as a studio would name one.
                var sequel = 2
                while !seen.insert("\(title) \(sequel)").inserted { sequel += 1 }
                title = "\(title) \(sequel)"
            }
            movies.append(Movie(id: id, title: title, rating: makeRating(&generator), budget: makeBudget(&generator)))
        }
        return movies
    }

    private static let adjectives = [
        "Silent", "Crimson", "Last", "Hidden", "Broken", "Golden", "Midnight", "Lost", "Electric", "Frozen",
        "Distant", "Wild", "Burning", "Quiet", "Savage", "Velvet", "Hollow", "Iron", "Paper", "Secret",
    ]
    private static let nouns = [
        "Harbor", "Empire", "River", "Garden", "Kingdom", "Signal", "Horizon", "Mirror", "Orchard", "Station",
        "Frontier", "Lantern", "Canyon", "Witness", "Voyage", "Citadel", "Summer", "Machine", "Dynasty", "Storm",
    ]
    private static let places = [
        "Accra", "Kumasi", "Tamale", "Cape Coast", "Lagos", "Dakar", "Nairobi", "Marrakesh", "Lisbon", "Havana",
        "Osaka", "Oslo", "Quito", "Tbilisi", "Montreal", "Sapporo",
    ]
    private static let onsets = ["b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "th", "sh"]
    private static let vowels = ["a", "e", "i", "o", "u", "ai", "ou"]

    private static func makeTitle(_ generator: inout SplitMix64) -> String {
        func pick(_ words: [String]) -> String { words[Int(generator.next() % UInt64(words.count))] }
        switch generator.next() % 8 {
        case 0: return "The \(pick(adjectives)) \(pick(nouns))"
        case 1: return "\(pick(adjectives)) \(pick(nouns)) of \(pick(places))"
        case 2: return "\(makeName(&generator)) and the \(pick(adjectives)) \(pick(nouns))"
        case 3: return "The \(pick(nouns)) of \(makeName(&generator))"
        case 4: return "\(makeName(&generator))"
        case 5: return "\(pick(places)) \(pick(nouns))"
        case 6: return "\(makeName(&generator)) \(makeName(&generator))"
        default: return "A \(pick(adjectives)) \(pick(nouns)) in \(pick(places))"
        }
    }

    /// An invented name of two to four syllables, "Zoumika" or "Thera".
    private static func makeName(_ generator: inout SplitMix64) -> String {
        var name = ""
        for _ in 0..<(2 + Int(generator.next() % 3)) {
            name += onsets[Int(generator.next() % UInt64(onsets.count))]
            name += vowels[Int(generator.next() % UInt64(vowels.count))]
        }
        return name.prefix(1).uppercased() + name.dropFirst()
    }

    private static func makeRating(_ generator: inout SplitMix64) -> Movie.Rating {
        switch generator.next() % 100 {
        case ..<10: return .G
        case ..<30: return .PG
        case ..<70: return .PG_13
        case ..<95: return .R
        default: return .NC_17
        }
    }

    /// 250,000 to 30,000,000 in steps of 250,000.
    private static func makeBudget(_ generator: inout SplitMix64) -> Int {
        (1 + Int(generator.next() % 120)) * 250_000
    }
}

/// SplitMix64: small, fast and the same everywhere, which is all a benchmark's data needs.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E509
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - Query

/// A filter and a sort over n records: the package's query on a `FileStore` with a warm cache and on a
/// `MemoryStore`, against `Array.filter` and `sorted` on the records already in an array.
struct StoreQueryWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run(n: Int) throws -> StoreQueryResult {
        let repetitions = plan.storeQueryRepetitions(n: n)
        let movies = MovieCatalog.movies(count: n)
        let url = sandbox.file("movies-query-\(n).json")
        try ArchiveFormat.encoder.encode(movies).write(to: url, options: .atomic)
        let fileStore = FileStore<Movie>(url: url)
        // The one read that decodes the file and fills the cache; every query after it finds the records there.
        let loaded = try fileStore.all()
        try expect(
            loaded == movies, "store query", "the file store read back \(loaded.count) records, not the \(n) written"
        )
        let memoryStore = MemoryStore(movies)

        let expected = Self.reference(loaded)
        try expect(
            !expected.isEmpty && expected.count < n, "store query", "the filter kept \(expected.count) of \(n) records"
        )

        var result = StoreQueryResult(
            n: n, selected: expected.count, fileStore: Samples(), memoryStore: Samples(), reference: Samples()
        )
        for round in 0..<repetitions {
            try interleave(round: round, [
                {
                    var found: [Movie] = []
                    result.fileStore.add(try Stopwatch.seconds { found = try Self.query(fileStore) })
                    try expect(found == expected, "store query", Self.mismatch("FileStore", found, expected))
                },
                {
                    var found: [Movie] = []
                    result.memoryStore.add(try Stopwatch.seconds { found = try Self.query(memoryStore) })
                    try expect(found == expected, "store query", Self.mismatch("MemoryStore", found, expected))
                },
                {
                    var found: [Movie] = []
                    result.reference.add(Stopwatch.seconds { found = Self.reference(loaded) })
                    try expect(found == expected, "store query", Self.mismatch("the reference", found, expected))
                },
            ])
        }

        // Leaves an empty file in the cache instead of n records, then removes it.
        try fileStore.deleteAll()
        Sandbox.removeFile(url)
        return result
    }

    /// The package's query, as an app writes it.
    private static func query(_ store: some Store<Movie>) throws -> [Movie] {
        try store.filter(where: \.rating == .PG_13 && \.budget >= 10_000_000).sorted(by: \.title).result()
    }

    /// The same query as an app writes it without the package, on an array it already holds.
    private static func reference(_ movies: [Movie]) -> [Movie] {
        movies.filter { $0.rating == .PG_13 && $0.budget >= 10_000_000 }.sorted { $0.title < $1.title }
    }

    private static func mismatch(_ contender: String, _ found: [Movie], _ expected: [Movie]) -> String {
        let firstDifference = zip(found, expected).enumerated().first { $0.element.0 != $0.element.1 }
            .map { "first difference at \($0.offset)" } ?? "one is a prefix of the other"
        return "\(contender) returned \(found.count) records, the reference \(expected.count); \(firstDifference)"
    }
}

// MARK: - Write block

/// n inserts of new records into a durable `FileStore`: all in one `write` block, against one `insert` each.
struct StoreWriteWorkload {
    let sandbox: Sandbox
    let plan: Plan

    func run() throws -> StoreWriteResult {
        let records = plan.storeWriteRecords
        let changes = plan.storeWriteChanges
        let catalog = MovieCatalog.movies(count: records + changes)
        let seed = try ArchiveFormat.encoder.encode(Array(catalog[..<records]))
        let additions = Array(catalog[records...])
        let blockFile = sandbox.file("movies-write-block.json")
        let singleFile = sandbox.file("movies-write-single.json")

        var result = StoreWriteResult(records: records, changes: changes, block: Samples(), singles: Samples())
        for round in 0..<plan.storeWriteRepetitions {
            try interleave(round: round, [
                {
                    let store = try Self.freshStore(at: blockFile, seed: seed, records: records)
                    result.block.add(try Stopwatch.seconds {
                        try store.write { writer in
                            for movie in additions { writer.insert(movie) }
                        }
                    })
                    try Self.verify(blockFile, holds: catalog, "write block")
                },
                {
                    let store = try Self.freshStore(at: singleFile, seed: seed, records: records)
                    result.singles.add(try Stopwatch.seconds {
                        for movie in additions { try store.insert(movie) }
                    })
                    try Self.verify(singleFile, holds: catalog, "single inserts")
                },
            ])
        }

        Sandbox.removeFile(blockFile)
        Sandbox.removeFile(singleFile)
        return result
    }

    /// A new store on a new file holding the seed records, flushed, with its records decoded into the cache as an
    /// app's earlier reads would have left them: none of it is timed.
    private static func freshStore(at url: URL, seed: Data, records: Int) throws -> FileStore<Movie> {
        Sandbox.removeFile(url)
        try IOFloor.rewrite(seed, atPath: url.path, durable: true)
        let store = FileStore<Movie>(url: url, durability: .full)
        let count = try store.all().count
        guard count == records else {
            throw WorkloadFailure(description: "store write: the fresh file holds \(count) records, expected \(records)")
        }
        return store
    }

    /// Reads the file with Foundation alone, past the package's cache, and checks it holds exactly `expected`.
    private static func verify(_ url: URL, holds expected: [Movie], _ contender: String) throws {
        let stored = try ArchiveFormat.decoder.decode([Movie].self, from: Data(contentsOf: url))
        guard stored == expected else {
            throw WorkloadFailure(description: "store write (\(contender)): the file holds \(stored.count) records, "
                + "expected these \(expected.count)")
        }
    }
}
