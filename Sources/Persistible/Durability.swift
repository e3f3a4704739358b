/// How far a save goes to make its data survive a crash of the whole machine.
///
/// Every save is atomic whatever the durability: the file holds either the old contents or the new ones, never a
/// mixture, even if the process is killed in the middle. Durability decides what a power loss or a kernel crash
/// can undo; <doc:Guarantees> says how.
public enum Durability: Sendable, Hashable {
    /// The file and its directory are flushed to the disk before a save returns, so that the value survives a power
    /// loss: `fsync` on Linux, `F_FULLFSYNC` on Apple platforms, which also empties the drive's own cache.
    case full

    /// Only the new file's data is flushed, before it replaces the old one (`fdatasync` on Linux, `F_BARRIERFSYNC`
    /// on Apple platforms); its directory is not. After a power loss the file holds a version that was once saved,
    /// perhaps not the latest, and never a mixture nor a zero-filled file.
    case noSync
}
