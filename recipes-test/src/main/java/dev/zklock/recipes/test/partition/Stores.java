package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.FencedStore;
import dev.zklock.recipes.test.history.FileCounter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The counters and fenced sets of one client JVM, one of each per key, in the store directory every client JVM of the
 * run shares; and the JVM's source of fenced-set elements. Thread-safe.
 */
final class Stores {
    private final Path dir;
    private final Map<String, FileCounter> counters = new ConcurrentHashMap<>();
    private final Map<String, FencedStore> fenced = new ConcurrentHashMap<>();
    private final Worker.Elements elements;

    Stores(Path dir, String clientId) {
        this.dir = dir;
        this.elements = new Worker.Elements(clientId);
    }

    FileCounter counter(String key) {
        return counters.computeIfAbsent(key, k -> FileCounter.open(PartitionWorkloads.counterFile(dir, k)));
    }

    FencedStore fenced(String key) {
        return fenced.computeIfAbsent(key, k -> FencedStore.open(PartitionWorkloads.fencedDir(dir, k)));
    }

    Worker.Elements elements() {
        return elements;
    }
}
