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
import java.util.TreeMap;
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
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the docs honest: every test class and test method that README.md, ARCHITECTURE.md, BENCHMARKS.md or a comment
 * in the sources names (as {@code FooTest} or {@code FooTest.method}, likewise {@code FooIT}) exists in the tree, and
 * every {@code java} block of the README compiles and runs against a real ZooKeeper server. The blocks are read from
 * README.md when the test runs, never copied: a block's leading {@code import} lines open its compilation unit, the
 * rest becomes the body of a method that may throw, beside two fields the test fills in, {@code client} (a started
 * client) and {@code connectString} (the server's), and the imports the README says its blocks assume.
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

    @Test
    void readme_benchmarkRows_areRowsOfBenchmarksMd() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"));
        List<String> headline = tableRows(readme.substring(readme.indexOf("## Benchmarks")));
        List<String> generated = tableRows(Files.readString(ROOT.resolve("BENCHMARKS.md")));

        assertThat(headline).as("the README's benchmark table").isNotEmpty();
        for (String row : headline) {
            assertThat(generated)
                    .as("BENCHMARKS.md has the README's row %s", row)
                    .anyMatch(generatedRow -> generatedRow.startsWith(row + " | "));
        }
    }

    @TestFactory
    Stream<DynamicTest> readme_everyJavaBlock_compilesAndRuns() throws IOException {
        List<Block> blocks = Block.of(Files.readString(ROOT.resolve("README.md")));
        assertThat(blocks).as("java blocks in README.md").isNotEmpty();
        CuratorFramework client = zk.newClient();
        return blocks.stream()
                .map(block -> DynamicTest.dynamicTest("README.md line " + block.line(), () -> {
                    Class<?> compiled = compile(block);
                    compiled.getField("client").set(null, client);
                    compiled.getField("connectString").set(null, zk.connectString());
                    compiled.getMethod("run").invoke(null);
                    // A kept idle node (keepIdle) goes on the client's timer once its time is up.
                    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(ephemeralNodes(client))
                            .as("nodes the block at line %d left behind", block.line())
                            .isEmpty());
                }));
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

        String className() {
            return "ReadmeBlockAtLine" + line;
        }

        String source() {
            return ASSUMED_IMPORTS.stream()
                            .map(type -> "import " + type + ";\n")
                            .collect(Collectors.joining())
                    + String.join("\n", imports) + "\n\npublic final class " + className() + " {\n"
                    + "    public static CuratorFramework client;\n"
                    + "    public static String connectString;\n\n"
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
        StringWriter diagnostics = new StringWriter();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            List<String> options = List.of(
                    "-classpath", System.getProperty("java.class.path"), "-d", classes.toString(), "-proc:none");
            boolean compiled = compiler.getTask(diagnostics, files, null, options, null, List.of(source))
                    .call();
            assertThat(compiled)
                    .as(
                            "the java block at README.md line %d compiles:%n%s%nas%n%s",
                            block.line(), diagnostics, block.source())
                    .isTrue();
        }
        URLClassLoader loader =
                new URLClassLoader(new URL[] {classes.toUri().toURL()}, DocsTest.class.getClassLoader());
        return Class.forName(block.className(), true, loader);
    }

    /**
     * Returns the rows of the first Markdown table in {@code markdown}, each as "cell | cell | ...", with a blank recipe
     * or scenario cell filled in from the row above, as BENCHMARKS.md leaves them blank.
     */
    private static List<String> tableRows(String markdown) {
        List<String> rows = new ArrayList<>();
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
            if (cells.get(0).equals("recipe") || cells.get(0).startsWith("---")) {
                continue;
            }
            for (int i = 0; i < 2 && i < above.size(); i++) {
                if (cells.get(i).isEmpty()) {
                    cells.set(i, above.get(i));
                }
            }
            above = cells;
            rows.add(String.join(" | ", cells));
        }
        return rows;
    }

    /** Returns every ephemeral node on the server, outside ZooKeeper's own tree. */
    private static List<String> ephemeralNodes(CuratorFramework client) throws Exception {
        List<String> ephemeral = new ArrayList<>();
        List<String> pending = new ArrayList<>(List.of("/"));
        while (!pending.isEmpty()) {
            String path = pending.remove(pending.size() - 1);
            List<String> children;
            try {
                children = client.getChildren().forPath(path);
            } catch (KeeperException.NoNodeException reaped) {
                continue; // an empty container parent, reaped by the server since it was listed
            }
            for (String child : children) {
                String childPath = (path.equals("/") ? "" : path) + "/" + child;
                Stat stat = client.checkExists().forPath(childPath);
                if (childPath.equals("/zookeeper") || stat == null) {
                    continue;
                }
                if (stat.getEphemeralOwner() != 0) {
                    ephemeral.add(childPath);
                }
                pending.add(childPath);
            }
        }
        return ephemeral;
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
