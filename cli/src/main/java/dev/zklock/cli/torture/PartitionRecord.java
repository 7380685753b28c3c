package dev.zklock.cli.torture;

import dev.zklock.cli.RunInfo;
import dev.zklock.recipes.test.history.History;
import dev.zklock.recipes.test.history.HistoryReport;
import dev.zklock.recipes.test.history.LivenessChecker;
import dev.zklock.recipes.test.history.MutexChecker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Writes what a person reads of a partition run, in one call: the timeline picture ({@link PartitionTimeline}) and,
 * beside it, the Markdown record ({@link PartitionMarkdown}) that links it by its file name, both judged by the same
 * checkers.
 *
 * <p>Stateless and thread-safe; it runs the checkers over the history (no ZooKeeper request) and writes two files.
 */
final class PartitionRecord {
    private PartitionRecord() {}

    /**
     * Writes {@code markdown} and the picture beside it, named as {@code markdown} with {@code .png} for its extension
     * ({@code PARTITIONS.md}: {@code PARTITIONS.png}).
     *
     * @param run the run's setting
     * @param origin where and from what the figures came ({@link RunInfo#origin})
     * @param history the run's merged history
     * @param mutex the mutual-exclusion checker, with the semaphores' lease counts
     * @param liveness the liveness checker, with the run's timeouts
     * @param counterFinals the unfenced counters' final values per path, where known
     * @param markdown the Markdown file to write
     * @return the picture's path
     * @throws IOException if a file cannot be written
     * @throws IllegalArgumentException if the history has no hold, or as the checkers do
     */
    static Path write(
            PartitionMarkdown.Run run,
            List<String> origin,
            History history,
            MutexChecker mutex,
            LivenessChecker liveness,
            Map<String, Long> counterFinals,
            Path markdown)
            throws IOException {
        Objects.requireNonNull(markdown, "markdown");
        String name = markdown.getFileName().toString();
        int dot = name.lastIndexOf('.');
        String pictureName = (dot > 0 ? name.substring(0, dot) : name) + ".png";
        Path picture = markdown.resolveSibling(pictureName);
        PartitionTimeline.draw(
                history, mutex, "zklock torture --partitions, seed " + run.seed() + ": holds per lock path", picture);
        String text = PartitionMarkdown.render(
                run, origin, history, HistoryReport.create(mutex, liveness).rows(history, counterFinals), pictureName);
        Files.writeString(markdown, text, StandardCharsets.UTF_8);
        return picture;
    }
}
