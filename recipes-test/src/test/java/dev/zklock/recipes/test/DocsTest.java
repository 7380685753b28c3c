package dev.zklock.recipes.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the docs honest: every test class and test method that README.md, ARCHITECTURE.md, BENCHMARKS.md or a comment
 * in the sources names (as {@code FooTest} or {@code FooTest.method}, likewise {@code FooIT}) exists in the tree; in
 * README.md, a test named beside a sentence also shares a word with what the sentence says; the README's benchmark rows
 * are whole rows of BENCHMARKS.md, cell for cell; and every {@code java} block of the README compiles and runs, twice
 * in a row, against a real ZooKeeper server, leaving the tree as it found it. The blocks are read from README.md when
 * the test runs, never copied. A block that declares a class is compiled as it stands and its {@code main} is run
 * with the server's connect string as its argument. Any other block becomes the body of a method that may throw: its
 * leading {@code import} lines open the compilation unit, beside the imports the README says its blocks assume and a
 * field {@code client}, a started client of the server.
 */
@Timeout(60)
final class DocsTest {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.server();

    /** The imports the README's blocks assume, as it says after its first example. */
    private static final List<String> ASSUMED_IMPORTS = List.of(
            "dev.zklock.recipes.locks.*",
            "java.nio.charset.StandardCharsets",
            "java.time.Duration",
            "java.util.List",
            "java.util.concurrent.TimeUnit",
            "java.util.concurrent.locks.Lock",
            "org.apache.curator.framework.CuratorFramework",
            "org.apache.curator.framework.recipes.locks.InterProcessLock",
            "org.apache.curator.framework.recipes.locks.Lease",
            "org.apache.curator.framework.recipes.locks.RevocationListener");

    private static final List<String> DOCS = List.of("README.md", "ARCHITECTURE.md", "BENCHMARKS.md");

    /** {@code FooTest}, {@code FooIT}, each optionally followed by {@code .method}. */
    private static final Pattern TEST_NAME =
            Pattern.compile("\\b([A-Z][a-z][A-Za-z0-9]*(?:Test|IT))\\b(?:\\.([a-z][A-Za-z0-9_]*))?");

    /** A block that is a class of its own: its public class, named as the file it would be in. */
    private static final Pattern PUBLIC_CLASS =
            Pattern.compile("^public\\s+(?:final\\s+)?class\\s+(\\w+)", Pattern.MULTILINE);

    /**
     * Words of five letters or more that say nothing about what a test shows: English function words, the names of
     * the libraries, and the verbs nearly every lock test has in its name.
     */
    private static final Set<String> STOP_WORDS = Set.of(
            "about",
            "above",
            "after",
            "again",
            "against",
            "along",
            "already",
            "although",
            "always",
            "among",
            "another",
            "anything",
            "around",
            "because",
            "before",
            "being",
            "below",
            "between",
            "cannot",
            "could",
            "doing",
            "during",
            "either",
            "every",
            "having",
            "instead",
            "itself",
            "might",
            "other",
            "others",
            "rather",
            "should",
            "since",
            "still",
            "their",
            "there",
            "these",
            "those",
            "through",
            "under",
            "until",
            "where",
            "whether",
            "which",
            "while",
            "whose",
            "within",
            "without",
            "would",
            "zklock",
            "zklocks",
            "curator",
            "curators",
            "zookeeper",
            "acquire",
            "acquires",
            "acquired",
            "release",
            "releases",
            "released");

    private static final Path ROOT = repositoryRoot();

    @TempDir
    Path classes;

    @Test
    void docsAndComments_everyTestTheyName_exists() throws IOException {
        Map<String, Path> testClasses = testClasses();
        Map<String, String> texts = new TreeMap<>();
        for (String doc : DOCS) {
            texts.put(doc, Files.readString(ROOT.resolve(doc)));
        }
        for (Path source : javaSources()) {
            if (!source.endsWith("DocsTest.java")) {
                texts.put(ROOT.relativize(source).toString(), comments(Files.readString(source)));
            }
        }

        List<String> missing = new ArrayList<>();
        texts.forEach((where, text) -> {
            Matcher name = TEST_NAME.matcher(text);
            while (name.find()) {
                Path testClass = testClasses.get(name.group(1));
                if (testClass == null) {
                    missing.add(where + ": no test class " + name.group(1));
                } else if (name.group(2) != null && !declaresMethod(testClass, name.group(2))) {
                    missing.add(where + ": " + name.group(1) + " has no method " + name.group(2));
                }
            }
        });

        assertThat(testClasses).containsKeys("DocsTest", "LostHoldIdiomTest", "DemoCommandTest");
        assertThat(missing)
                .as("tests named in the docs that are not in the tree")
                .isEmpty();
    }

    /**
     * A test named beside a sentence of the README must be about what the sentence says: at least one word of the
     * sentence (five letters or more, not a {@linkplain #STOP_WORDS stop word}, compared by its stem) is a word of the
     * test method's name or, for a class named alone, of one of its test methods' names or assertion descriptions.
     */
    @Test
    void readme_everyTestNamedBesideASentence_sharesAWordWithIt() throws IOException {
        Map<String, Path> testClasses = testClasses();
        List<String> unrelated = new ArrayList<>();
        for (String sentence : sentences(Files.readString(ROOT.resolve("README.md")))) {
            Set<String> said = significantStems(TEST_NAME.matcher(sentence).replaceAll(" "));
            Matcher name = TEST_NAME.matcher(sentence);
            while (name.find()) {
                Path testClass = testClasses.get(name.group(1));
                if (testClass == null) {
                    continue; // the existence check reports it
                }
                Set<String> tested =
                        name.group(2) != null ? stems(words(name.group(2))) : stems(words(testVocabulary(testClass)));
                if (said.stream().noneMatch(tested::contains)) {
                    unrelated.add(name.group() + " shares no word with: " + sentence);
                }
            }
        }

        assertThat(unrelated)
                .as("tests the README names beside sentences they say nothing of")
                .isEmpty();
    }

    @Test
    void readme_isAtMost300Lines_withItsFirstProgramInTheFirst30() throws IOException {
        List<String> lines = Files.readString(ROOT.resolve("README.md")).lines().toList();

        assertThat(lines).as("README.md's lines").hasSizeLessThanOrEqualTo(300);
        assertThat(lines.subList(0, 30)).as("README.md's first 30 lines").contains("```java");
    }

    @Test
    void readme_benchmarkRows_areWholeRowsOfBenchmarksMdCellForCell() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        List<List<String>> headline = table(readme.substring(readme.indexOf("## Benchmarks")));
        List<List<String>> generated = table(Files.readString(ROOT.resolve("BENCHMARKS.md")));

        assertThat(headline).as("the README's benchmark table").hasSizeGreaterThan(1);
        // Cells are compared by position, whatever the header calls the columns, so long as there are as many.
        assertThat(headline.get(0))
                .as(
                        "the README's benchmark header %s has the columns of BENCHMARKS.md's %s",
                        headline.get(0), generated.get(0))
                .hasSameSizeAs(generated.get(0));
        List<List<String>> rows = generated.subList(1, generated.size());
        for (List<String> row : headline.subList(1, headline.size())) {
            assertThat(rows).as("BENCHMARKS.md has the README's row %s", row).contains(row);
        }
    }

    @TestFactory
    Stream<DynamicTest> readme_everyJavaBlock_compilesAndRunsTwiceLeavingNoNode() throws IOException {
        List<Block> blocks = Block.of(Files.readString(ROOT.resolve("README.md")));
        assertThat(blocks).as("java blocks in README.md").isNotEmpty();
        assertThat(blocks)
                .as("README.md has a java block that is a program of its own")
                .anyMatch(Block::isProgram);
        CuratorFramework client = zk.newClient();
        return blocks.stream()
                .map(block -> DynamicTest.dynamicTest("README.md line " + block.line(), () -> runTwice(block, client)));
    }

    /**
     * Runs a block twice in a row, and after each run waits until the tree is as the run found it: a kept idle node
     * (keepIdle) goes on the client's timer once its time is up, an empty container parent when the server's reaper
     * next passes (every 100 ms under {@link ZooKeeperExtension}); any other node left, of any kind, fails the block.
     */
    private void runTwice(Block block, CuratorFramework client) throws Exception {
        Class<?> compiled = compile(block);
        for (int run = 1; run <= 2; run++) {
            Set<String> before = tree(client);
            if (block.isProgram()) {
                compiled.getMethod("main", String[].class).invoke(null, (Object) new String[] {zk.connectString()});
            } else {
                compiled.getField("client").set(null, client);
                compiled.getMethod("run").invoke(null);
            }
            String which = "the block at line " + block.line() + " on run " + run;
            await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                Set<String> after = tree(client);
                assertThat(difference(after, before))
                        .as("nodes %s left behind", which)
                        .isEmpty();
                assertThat(difference(before, after))
                        .as("nodes %s deleted", which)
                        .isEmpty();
            });
        }
    }

    /** A {@code java} block of the README: the line it starts on, its import lines, and the rest. */
    private record Block(int line, List<String> imports, List<String> body) {
        static List<Block> of(String markdown) {
            List<String> lines = markdown.lines().toList();
            List<Block> blocks = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).strip().equals("```java")) {
                    continue;
                }
                int start = i + 1;
                List<String> imports = new ArrayList<>();
                List<String> body = new ArrayList<>();
                for (i = start; !lines.get(i).strip().equals("```"); i++) {
                    String line = lines.get(i);
                    (line.startsWith("import ") && body.isEmpty() ? imports : body).add(line);
                }
                blocks.add(new Block(start, imports, body));
            }
            return blocks;
        }

        /** Whether the block is a compilation unit of its own, a public class, rather than statements. */
        boolean isProgram() {
            return PUBLIC_CLASS.matcher(String.join("\n", body)).find();
        }

        String className() {
            if (isProgram()) {
                Matcher declared = PUBLIC_CLASS.matcher(String.join("\n", body));
                declared.find();
                return declared.group(1);
            }
            return "ReadmeBlockAtLine" + line;
        }

        String source() {
            if (isProgram()) {
                return String.join("\n", imports) + "\n" + String.join("\n", body) + "\n";
            }
            return ASSUMED_IMPORTS.stream()
                            .map(type -> "import " + type + ";\n")
                            .collect(Collectors.joining())
                    + String.join("\n", imports) + "\n\npublic final class " + className() + " {\n"
                    + "    public static CuratorFramework client;\n\n"
                    + "    public static void run() throws Exception {\n"
                    + String.join("\n", body) + "\n    }\n}\n";
        }
    }

    private Class<?> compile(Block block) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        JavaFileObject source =
                new SimpleJavaFileObject(
                        java.net.URI.create("string:///" + block.className() + ".java"), JavaFileObject.Kind.SOURCE) {
                    @Override
                    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                        return block.source();
                    }
                };
        Path output = Files.createDirectories(classes.resolve("line" + block.line()));
        StringWriter diagnostics = new StringWriter();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            List<String> options =
                    List.of("-classpath", System.getProperty("java.class.path"), "-d", output.toString(), "-proc:none");
            boolean compiled = compiler.getTask(diagnostics, files, null, options, null, List.of(source))
                    .call();
            assertThat(compiled)
                    .as(
                            "the java block at README.md line %d compiles:%n%s%nas%n%s",
                            block.line(), diagnostics, block.source())
                    .isTrue();
        }
        URLClassLoader loader = new URLClassLoader(new URL[] {output.toUri().toURL()}, DocsTest.class.getClassLoader());
        return Class.forName(block.className(), true, loader);
    }

    /**
     * Returns the first Markdown table in {@code markdown}: its header, then its rows (the separator line left out),
     * each as its cells, with a blank recipe or scenario cell filled in from the row above, as BENCHMARKS.md leaves
     * them blank.
     */
    private static List<List<String>> table(String markdown) {
        List<List<String>> rows = new ArrayList<>();
        List<String> above = List.of();
        boolean inTable = false;
        for (String line : markdown.lines().toList()) {
            if (!line.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            inTable = true;
            List<String> cells = new ArrayList<>(
                    Stream.of(line.substring(1, line.length() - 1).split("\\|", -1))
                            .map(String::strip)
                            .toList());
            if (cells.stream().allMatch(cell -> cell.matches(":?-{3,}:?"))) {
                continue;
            }
            if (!rows.isEmpty()) {
                for (int i = 0; i < 2 && i < above.size(); i++) {
                    if (cells.get(i).isEmpty()) {
                        cells.set(i, above.get(i));
                    }
                }
                above = cells;
            }
            rows.add(List.copyOf(cells));
        }
        return rows;
    }

    /**
     * Returns every node on the server, by path, outside ZooKeeper's own tree (a node deleted while it is read, such as
     * an empty container parent the server reaps, is left out).
     */
    private static Set<String> tree(CuratorFramework client) throws Exception {
        Set<String> nodes = new TreeSet<>();
        List<String> pending = new ArrayList<>(List.of("/"));
        while (!pending.isEmpty()) {
            String path = pending.remove(pending.size() - 1);
            List<String> children;
            try {
                children = client.getChildren().forPath(path);
            } catch (KeeperException.NoNodeException deleted) {
                nodes.remove(path);
                continue;
            }
            for (String child : children) {
                String childPath = (path.equals("/") ? "" : path) + "/" + child;
                if (!childPath.equals("/zookeeper")) {
                    nodes.add(childPath);
                    pending.add(childPath);
                }
            }
        }
        return nodes;
    }

    private static Set<String> difference(Set<String> these, Set<String> those) {
        Set<String> rest = new TreeSet<>(these);
        rest.removeAll(those);
        return rest;
    }

    /**
     * Returns the sentences of a Markdown text that may name tests: code blocks left out; headings, list items, table
     * rows and paragraphs apart; a paragraph cut after each full stop that ends a sentence.
     */
    private static List<String> sentences(String markdown) {
        String prose = markdown.replaceAll("(?ms)^```.*?^```", "\n");
        List<String> units = new ArrayList<>();
        StringBuilder unit = new StringBuilder();
        for (String line : prose.lines().toList()) {
            boolean startsUnit =
                    line.isBlank() || line.startsWith("#") || line.startsWith("|") || line.startsWith("- ");
            if (startsUnit && unit.length() > 0) {
                units.add(unit.toString());
                unit.setLength(0);
            }
            unit.append(line.strip()).append(' ');
        }
        units.add(unit.toString());
        List<String> sentences = new ArrayList<>();
        for (String paragraph : units) {
            for (String sentence : paragraph.split("(?<=\\.)\\s+(?=[A-Z`\\[*(])")) {
                if (!sentence.isBlank()) {
                    sentences.add(sentence.strip());
                }
            }
        }
        return sentences;
    }

    /** Returns the words of a text, identifiers split at each capital and underscore. */
    private static List<String> words(String text) {
        return Stream.of(text.replaceAll("([a-z0-9])([A-Z])", "$1 $2").split("[^A-Za-z]+"))
                .filter(word -> !word.isEmpty())
                .map(word -> word.toLowerCase(java.util.Locale.ROOT))
                .toList();
    }

    private static Set<String> significantStems(String sentence) {
        return words(sentence).stream()
                .filter(word -> word.length() >= 5 && !STOP_WORDS.contains(word))
                .map(DocsTest::stem)
                .collect(Collectors.toSet());
    }

    private static Set<String> stems(List<String> words) {
        return words.stream().map(DocsTest::stem).collect(Collectors.toSet());
    }

    /** A crude stem, enough to match "waits", "waiting" and "waited", or "leases" and "lease". */
    private static String stem(String word) {
        String stem = word;
        if (stem.endsWith("ies") && stem.length() > 4) {
            stem = stem.substring(0, stem.length() - 3) + "y";
        } else if (stem.endsWith("ing") && stem.length() > 5) {
            stem = stem.substring(0, stem.length() - 3);
        } else if ((stem.endsWith("ed") || stem.endsWith("es")) && stem.length() > 4) {
            stem = stem.substring(0, stem.length() - 2);
        } else if (stem.endsWith("s") && !stem.endsWith("ss") && stem.length() > 3) {
            stem = stem.substring(0, stem.length() - 1);
        }
        return stem.endsWith("e") && stem.length() > 3 ? stem.substring(0, stem.length() - 1) : stem;
    }

    /**
     * The names of a test class's methods and the descriptions of its assertions ({@code .as("...")}), with those of
     * the class it extends when that is in the tree (a suite run against another server, say).
     */
    private static String testVocabulary(Path testClass) {
        try {
            String source = Files.readString(testClass);
            StringBuilder vocabulary = new StringBuilder();
            Matcher parent =
                    Pattern.compile("\\bclass\\s+\\w+\\s+extends\\s+(\\w+)").matcher(source);
            if (parent.find()) {
                for (Path candidate : javaSources()) {
                    if (candidate.getFileName().toString().equals(parent.group(1) + ".java")) {
                        vocabulary.append(testVocabulary(candidate)).append(' ');
                    }
                }
            }
            Matcher method = Pattern.compile("\\bvoid\\s+(\\w+)\\s*\\(").matcher(source);
            while (method.find()) {
                vocabulary.append(method.group(1)).append(' ');
            }
            Matcher described =
                    Pattern.compile("\\.as\\(\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(source);
            while (described.find()) {
                vocabulary.append(described.group(1)).append(' ');
            }
            return vocabulary.toString();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Returns each test class of the tree by its simple name, with its source file. */
    private static Map<String, Path> testClasses() throws IOException {
        Map<String, Path> classes = new TreeMap<>();
        for (Path source : javaSources()) {
            String name = source.getFileName().toString().replace(".java", "");
            if (source.toString().contains("/src/test/java/")
                    && TEST_NAME.matcher(name).matches()) {
                classes.put(name, source);
            }
        }
        return classes;
    }

    private static boolean declaresMethod(Path testClass, String method) {
        try {
            return Pattern.compile("\\bvoid\\s+" + Pattern.quote(method) + "\\s*\\(")
                    .matcher(Files.readString(testClass))
                    .find();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * Returns the comments of a Java source (javadoc, block and line comments), one after another, without their code
     * samples ({@code <pre>} blocks), where a test of the reader's own may be named.
     */
    private static String comments(String java) {
        Matcher comment =
                Pattern.compile("/\\*.*?\\*/|//[^\\n]*", Pattern.DOTALL).matcher(java);
        StringBuilder out = new StringBuilder();
        while (comment.find()) {
            out.append(comment.group().replaceAll("(?s)<pre>.*?</pre>", "")).append('\n');
        }
        return out.toString();
    }

    private static List<Path> javaSources() throws IOException {
        List<Path> sources = new ArrayList<>();
        for (String module : List.of("recipes", "recipes-test", "spring", "cli")) {
            Path src = ROOT.resolve(module).resolve("src");
            try (Stream<Path> files = Files.walk(src)) {
                files.filter(file -> file.toString().endsWith(".java")).forEach(sources::add);
            }
        }
        return sources;
    }

    /** The repository: the nearest folder above the module's that holds README.md and .ci/run. */
    private static Path repositoryRoot() {
        Optional<Path> root = Stream.iterate(
                        Path.of(System.getProperty("user.dir")).toAbsolutePath(), dir -> dir != null, Path::getParent)
                .filter(dir ->
                        Files.isRegularFile(dir.resolve("README.md")) && Files.isRegularFile(dir.resolve(".ci/run")))
                .findFirst();
        return root.orElseThrow(
                () -> new AssertionError("no README.md with .ci/run above " + System.getProperty("user.dir")));
    }
}
