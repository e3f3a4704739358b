/// How far a save goes to make its data survive a crash of the whole machine; every save is atomic whatever the
/// durability (see <doc:Guarantees#Durability>).
public enum Durability: Sendable, Hashable {
    /// The file and its directory are flushed before a save returns, so that the value survives a power loss.
    case full

    /// Only the new file's data is flushed, before it replaces the old one; its directory is not.
    case noSync
}
