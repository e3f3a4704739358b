import Foundation
import Persistible
import Testing

struct Movie: Codable, Hashable, Identifiable, Sendable {
    enum Rating: String, Codable, Sendable {
        case G, PG, PG_13, R
    }

    var id: Int
    var title: String
    var rating: Rating
    var budget: Int
}

let alien = Movie(id: 1, title: "Alien", rating: .R, budget: 11_000_000)
let up = Movie(id: 2, title: "Up", rating: .PG, budget: 175_000_000)
let jaws = Movie(id: 3, title: "Jaws", rating: .PG, budget: 9_000_000)
let dune = Movie(id: 4, title: "Dune", rating: .PG_13, budget: 165_000_000)
let heat = Movie(id: 5, title: "Heat", rating: .R, budget: 60_000_000)
let movies = [alien, up, jaws, dune, heat]

/// The stores the behaviour suite runs against.
enum StoreKind: String, CaseIterable, Sendable {
    case file
    case memory

    /// Runs `body` with a new, empty store of this kind; a file store's file is then read afresh and compared.
    func withStore(_ body: (any Store<Movie> & Sendable) throws -> Void) throws {
        switch self {
        case .memory:
            try body(MemoryStore<Movie>())
        case .file:
            let directory = try TemporaryDirectory()
            let url = directory.file("movies.json")
            let store = FileStore<Movie>(url: url)
            try body(store)
            let fresh = FileStore<Movie>(url: url, cachesRecords: false)
            if FileManager.default.fileExists(atPath: url.path) {
                #expect(try fresh.all() == store.all(), "the file holds what the store reports")
            }
        }
    }

    func withStore(_ body: (any Store<Movie> & Sendable) async throws -> Void) async throws {
        switch self {
        case .memory:
            try await body(MemoryStore<Movie>())
        case .file:
            let directory = try TemporaryDirectory()
            try await body(FileStore<Movie>(url: directory.file("movies.json")))
        }
    }
}
