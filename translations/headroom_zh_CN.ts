<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>DiagnosticWording</name>
    <message>
        <source>&apos;%1&apos; holds more than %2 files, so the scan stopped there</source>
        <translation>“%1”下的文件超过 %2 个，扫描已在此停止</translation>
    </message>
    <message>
        <source>point &apos;path&apos; at the data set&apos;s own folder, or confirm the scan when Start asks</source>
        <translation>请把 data.yaml 中的根路径指向数据集自己的文件夹，或在开始训练询问时确认扫描</translation>
    </message>
    <message>
        <source>%1 processes each train a copy of the model, but this machine has %2 CPU cores</source>
        <translation>%1 个进程各自训练一份模型副本，但本机只有 %2 个 CPU 核心</translation>
    </message>
    <message>
        <source>set Processes to %1 or less (one per device)</source>
        <translation>请把进程数设为 %1 或更少（每个设备一个）</translation>
    </message>
    <message>
        <source>the run needs at least %1 of memory, most of it for the scores of %4 classes, but this machine has %2 available of %3</source>
        <translation>本次训练至少需要 %1 内存，其中大部分用于 %4 个类别的得分，但本机 %3 内存中只有 %2 可用</translation>
    </message>
    <message>
        <source>lower the number of classes, the batch or the image size</source>
        <translation>请减少类别数、批大小或图像尺寸</translation>
    </message>
    <message>
        <source>the run needs at least %1 of memory, but this machine has %2 available of %3</source>
        <translation>本次训练至少需要 %1 内存，但本机 %3 内存中只有 %2 可用</translation>
    </message>
    <message>
        <source>lower the batch or the image size (the memory panel shows the peak)</source>
        <translation>请减小批大小或图像尺寸（内存面板显示峰值）</translation>
    </message>
    <message>
        <source>nothing</source>
        <translation>空值</translation>
    </message>
    <message>
        <source>a list</source>
        <translation>一个列表</translation>
    </message>
    <message>
        <source>a map</source>
        <translation>一个映射</translation>
    </message>
    <message>
        <source>; did you mean &apos;%1&apos;?</source>
        <translation>；是否想输入“%1”？</translation>
    </message>
    <message>
        <source>expected a whole number, got %1; write a number like %2</source>
        <translation>应为整数，实际为 %1；请输入类似 %2 的数字</translation>
    </message>
    <message>
        <source>expected a whole number of images, got %1 (Ultralytics&apos; fraction of GPU memory); use -1 to fit the batch to the memory budget</source>
        <translation>应为整数张图像，实际为 %1（Ultralytics 的 GPU 显存比例写法）；用 -1 让批大小适配内存预算</translation>
    </message>
    <message>
        <source>the number %1 is too large</source>
        <translation>数字 %1 太大</translation>
    </message>
    <message>
        <source>expected a number, got %1; write a number like %2</source>
        <translation>应为数字，实际为 %1；请输入类似 %2 的数字</translation>
    </message>
    <message>
        <source>expected true or false, got %1</source>
        <translation>应为 true 或 false，实际为 %1</translation>
    </message>
    <message>
        <source>expected one value, got %1</source>
        <translation>应为单个值，实际为 %1</translation>
    </message>
    <message>
        <source>expected a size like 3GiB, 512MiB or 1.5GB, got %1; write a size with a unit (KiB, MiB, GiB, KB, MB, GB), plain bytes, or none for no budget</source>
        <translation>应为类似 3GiB、512MiB 或 1.5GB 的大小，实际为 %1；请输入带单位（KiB、MiB、GiB、KB、MB、GB）的大小、字节数，或输入 none 表示不设预算</translation>
    </message>
    <message>
        <source>expected a number of layers or a list of layer indices, got %1; write a number N (freezes layers 0 to N-1) or a list like [0, 1, 2]</source>
        <translation>应为层数或层索引列表，实际为 %1；请输入数字 N（冻结第 0 至 N-1 层）或类似 [0, 1, 2] 的列表</translation>
    </message>
    <message>
        <source>expected one of %1, got %2</source>
        <translation>应为 %1 之一，实际为 %2</translation>
    </message>
    <message>
        <source>unknown device %1; for several GPUs choose cuda:0 and set the number of processes</source>
        <translation>未知设备 %1；多块 GPU 请选择 cuda:0 并设置进程数</translation>
    </message>
    <message>
        <source>expected an augmentation gain (a number like 0.5) or a model scale letter, got %1</source>
        <translation>应为增强增益（类似 0.5 的数字）或模型规模字母，实际为 %1</translation>
    </message>
    <message>
        <source>must be between %1 and %2, got %3</source>
        <translation>必须在 %1 到 %2 之间，实际为 %3</translation>
    </message>
    <message>
        <source>must be from %1 up to but not including %2, got %3</source>
        <translation>必须不小于 %1 且小于 %2，实际为 %3</translation>
    </message>
    <message>
        <source>must be above %1 and at most %2, got %3</source>
        <translation>必须大于 %1 且不超过 %2，实际为 %3</translation>
    </message>
    <message>
        <source>must be above %1, got %2</source>
        <translation>必须大于 %1，实际为 %2</translation>
    </message>
    <message>
        <source>must be at least %1, got %2</source>
        <translation>至少为 %1，实际为 %2</translation>
    </message>
    <message>
        <source>must be at most %1, got %2</source>
        <translation>最多为 %1，实际为 %2</translation>
    </message>
    <message>
        <source>cannot be negative, got %1</source>
        <translation>不能为负数，实际为 %1</translation>
    </message>
    <message>
        <source>must be a positive number of images or -1 (fit to memory), got %1</source>
        <translation>必须是正的图像数，或 -1（适配内存），实际为 %1</translation>
    </message>
    <message>
        <source>must be a positive multiple of 32 (the largest stride), got %1; use %2</source>
        <translation>必须是 32（最大步长）的正整数倍，实际为 %1；请使用 %2</translation>
    </message>
    <message>
        <source>%1 or %2</source>
        <translation>%1 或 %2</translation>
    </message>
    <message>
        <source>must not be empty</source>
        <translation>不能为空</translation>
    </message>
    <message>
        <source>a budget of %1 cannot hold even the smallest model and one image; give at least %2, or none for no budget</source>
        <translation>%1 的预算连最小的模型和一张图像都容纳不下；请至少设为 %2，或输入 none 表示不设预算</translation>
    </message>
    <message>
        <source>unknown setting %1</source>
        <translation>未知设置 %1</translation>
    </message>
    <message>
        <source>cannot read the value %1; quote it or fix its brackets</source>
        <translation>无法读取值 %1；请加引号或修正括号</translation>
    </message>
    <message>
        <source>sharding the optimizer state needs several processes; with one it has no effect</source>
        <translation>分片优化器状态需要多个进程；只有一个进程时不起作用</translation>
    </message>
    <message>
        <source>the strategy has no name; give it one of letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos;</source>
        <translation>策略没有名称；请用字母、数字、“-”、“_”和“.”为它命名</translation>
    </message>
    <message>
        <source>&apos;%1&apos; cannot be part of a folder name; use letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos;</source>
        <translation>“%1”不能用作文件夹名的一部分；请只用字母、数字、“-”、“_”和“.”</translation>
    </message>
    <message>
        <source>a setting without a name (= %1); write key=value, e.g. lr0=0.005</source>
        <translation>有一项设置没有名称（= %1）；请写成 键=值，例如 lr0=0.005</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is set twice; keep one</source>
        <translation>“%1”设置了两次；请只保留一个</translation>
    </message>
    <message>
        <source>the claimed mAP50 is a fraction between 0 and 1; write 0.68, not 68</source>
        <translation>声称的 mAP50 是 0 到 1 之间的小数；请写 0.68，而不是 68</translation>
    </message>
    <message>
        <source>no strategies to run; add one, or reset to the default matrix</source>
        <translation>没有可运行的策略；请添加一个，或恢复默认矩阵</translation>
    </message>
    <message>
        <source>a second strategy named &apos;%1&apos;; give each strategy its own name</source>
        <translation>已有另一个名为“%1”的策略；请为每个策略取不同的名称</translation>
    </message>
    <message>
        <source>expected 5 columns &apos;class cx cy w h&apos;, found %1: dropped the line</source>
        <translation>应为 5 列“class cx cy w h”，实际为 %1 列：已丢弃此行</translation>
    </message>
    <message>
        <source>write one object per line as &apos;class cx cy w h&apos; with coordinates in 0..1</source>
        <translation>每行写一个目标，格式为“class cx cy w h”，坐标取值 0..1</translation>
    </message>
    <message>
        <source>column %1 &apos;%2&apos; is not a number: dropped the line</source>
        <translation>第 %1 列“%2”不是数字：已丢弃此行</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>class id %1 is not one of the classes in names (%2): dropped the line</source>
        <translation>类别编号 %1 不在 names 的类别范围内（%2）：已丢弃此行</translation>
    </message>
    <message>
        <source>fix the class id or add the class to &apos;names&apos; in data.yaml</source>
        <translation>改正类别编号，或在 data.yaml 的“names”中添加该类别</translation>
    </message>
    <message>
        <source>box has zero or negative size (w %1, h %2): dropped the line</source>
        <translation>框的尺寸为零或负数（宽 %1，高 %2）：已丢弃此行</translation>
    </message>
    <message>
        <source>box lies outside the image: dropped the line</source>
        <translation>框位于图像之外：已丢弃此行</translation>
    </message>
    <message>
        <source>box has zero area: dropped the line</source>
        <translation>框的面积为零：已丢弃此行</translation>
    </message>
    <message>
        <source>coordinates outside [0, 1]: clipped the box to the image</source>
        <translation>坐标超出 [0, 1]：已将框裁剪到图像内</translation>
    </message>
    <message>
        <source>YOLO labels are normalised: divide pixel coordinates by the image size</source>
        <translation>YOLO 标注使用归一化坐标：请将像素坐标除以图像尺寸</translation>
    </message>
    <message>
        <source>duplicate of an earlier row: dropped the line</source>
        <translation>与前面某行重复：已丢弃此行</translation>
    </message>
    <message>
        <source>%1 polygon rows (segmentation labels): used the bounding box of each</source>
        <translation>%1 行多边形（分割标注）：已分别使用其外接框</translation>
    </message>
    <message>
        <source>cannot open the file</source>
        <translation>无法打开文件</translation>
    </message>
    <message>
        <source>the file is empty (0 bytes)</source>
        <translation>文件为空（0 字节）</translation>
    </message>
    <message>
        <source>cannot read the file</source>
        <translation>无法读取文件</translation>
    </message>
    <message>
        <source>not a decodable image (corrupt, truncated or an unsupported format)</source>
        <translation>不是可解码的图像（已损坏、被截断或格式不受支持）</translation>
    </message>
    <message>
        <source>%1: skipped the image</source>
        <translation>%1：已跳过此图像</translation>
    </message>
    <message>
        <source>replace or delete the file</source>
        <translation>替换或删除该文件</translation>
    </message>
    <message>
        <source>JPEG end marker missing (truncated file?): used the decodable part</source>
        <translation>缺少 JPEG 结束标记（文件被截断？）：已使用可解码的部分</translation>
    </message>
    <message>
        <source>the label file holds binary data, not text (from line %1): used the image as a background image</source>
        <translation>标注文件含有二进制数据而非文本（自第 %1 行起）：已将该图像作为背景图像使用</translation>
    </message>
    <message>
        <source>replace it with a text file of &apos;class cx cy w h&apos; lines, or delete it</source>
        <translation>请换成由“class cx cy w h”行组成的文本文件，或删除它</translation>
    </message>
    <message>
        <source>cannot read the label file: used the image as a background image</source>
        <translation>无法读取标注文件：已将该图像作为背景图像使用</translation>
    </message>
    <message>
        <source>the folder holds no images (%1)</source>
        <translation>该文件夹中没有图像（%1）</translation>
    </message>
    <message>
        <source>listed image &apos;%1&apos; does not exist: skipped it</source>
        <translation>列表中的图像“%1”不存在：已跳过</translation>
    </message>
    <message>
        <source>&apos;%1&apos; does not exist</source>
        <translation>“%1”不存在</translation>
    </message>
    <message>
        <source>correct &apos;path&apos; and the split entries in data.yaml</source>
        <translation>改正 data.yaml 中的“path”及各划分的条目</translation>
    </message>
    <message>
        <source>label file without an image: ignored it</source>
        <translation>标注文件没有对应的图像：已忽略</translation>
    </message>
    <message>
        <source>add the image or delete the label file</source>
        <translation>补上图像，或删除该标注文件</translation>
    </message>
    <message>
        <source>the data set has no &apos;%1&apos; split</source>
        <translation>数据集没有“%1”划分</translation>
    </message>
    <message>
        <source>add &apos;%1: images/%1&apos; to data.yaml</source>
        <translation>在 data.yaml 中添加“%1: images/%1”</translation>
    </message>
    <message>
        <source>the scan was cancelled</source>
        <translation>扫描已取消</translation>
    </message>
    <message>
        <source>no usable image in the &apos;%1&apos; split</source>
        <translation>“%1”划分中没有可用的图像</translation>
    </message>
    <message>
        <source>check the paths in data.yaml and the problems above</source>
        <translation>检查 data.yaml 中的路径以及上面列出的问题</translation>
    </message>
    <message>
        <source>malformed YAML: %1</source>
        <translation type="vanished">YAML 格式错误：%1</translation>
    </message>
    <message>
        <source>check the indentation, colons and quotes near this line</source>
        <translation>检查此行附近的缩进、冒号和引号</translation>
    </message>
    <message>
        <source>cannot read the data set description</source>
        <translation>无法读取数据集描述文件</translation>
    </message>
    <message>
        <source>check the path to data.yaml</source>
        <translation>检查 data.yaml 的路径</translation>
    </message>
    <message>
        <source>a data.yaml must be a map with train, val and names, got %1</source>
        <translation>data.yaml 必须是包含 train、val 和 names 的映射，实际为 %1</translation>
    </message>
    <message>
        <source>write &apos;path:&apos;, &apos;train:&apos;, &apos;val:&apos; and &apos;names:&apos; lines</source>
        <translation>写出“path:”“train:”“val:”和“names:”几行</translation>
    </message>
    <message>
        <source>a key must be a word, got %1</source>
        <translation>键必须是一个单词，实际为 %1</translation>
    </message>
    <message>
        <source>Headroom does not use this key</source>
        <translation>Headroom 不使用此键</translation>
    </message>
    <message>
        <source>unknown key</source>
        <translation>未知的键</translation>
    </message>
    <message>
        <source>data.yaml keys are path, train, val, test, names, nc</source>
        <translation>data.yaml 的键为 path、train、val、test、names、nc</translation>
    </message>
    <message>
        <source>did you mean &apos;%1&apos;?</source>
        <translation>是否想写“%1”？</translation>
    </message>
    <message>
        <source>both &apos;val&apos; and &apos;validation&apos; are given: used &apos;val&apos;</source>
        <translation>同时给出了“val”和“validation”：已使用“val”</translation>
    </message>
    <message>
        <source>remove &apos;validation&apos;</source>
        <translation>删除“validation”</translation>
    </message>
    <message>
        <source>read &apos;validation&apos; as &apos;val&apos;, as Ultralytics does</source>
        <translation>与 Ultralytics 一样，将“validation”读作“val”</translation>
    </message>
    <message>
        <source>rename it to &apos;val&apos;</source>
        <translation>将其改名为“val”</translation>
    </message>
    <message>
        <source>Headroom never downloads data sets; the files must already be on disk</source>
        <translation>Headroom 从不下载数据集；文件必须已在磁盘上</translation>
    </message>
    <message>
        <source>expected a folder, got %1</source>
        <translation>应为文件夹，实际为 %1</translation>
    </message>
    <message>
        <source>write the data set&apos;s root folder, or leave &apos;path&apos; out</source>
        <translation>写出数据集的根文件夹，或省略“path”</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not beside the YAML; used the datasets folder: %2</source>
        <translation>“%1”不在 YAML 文件旁；已使用数据集文件夹：%2</translation>
    </message>
    <message>
        <source>the datasets folder (%1) comes from HEADROOM_DATASETS_DIR or Ultralytics&apos; settings.json &apos;datasets_dir&apos;</source>
        <translation>数据集文件夹（%1）取自 HEADROOM_DATASETS_DIR 或 Ultralytics 的 settings.json 中的“datasets_dir”</translation>
    </message>
    <message>
        <source>a relative path is read against the YAML&apos;s folder (%1)</source>
        <translation>相对路径先相对于 YAML 所在文件夹（%1）解析</translation>
    </message>
    <message>
        <source>, then against the datasets folder (none set: set HEADROOM_DATASETS_DIR)</source>
        <translation>，再相对于数据集文件夹解析（未设置：请设置 HEADROOM_DATASETS_DIR）</translation>
    </message>
    <message>
        <source>, then against the datasets folder (%1)</source>
        <translation>，再相对于数据集文件夹（%1）解析</translation>
    </message>
    <message>
        <source>folder &apos;%1&apos; does not exist (resolved to %2)</source>
        <translation>文件夹“%1”不存在（解析为 %2）</translation>
    </message>
    <message>
        <source>no &apos;%1&apos; images given</source>
        <translation>未给出“%1”图像</translation>
    </message>
    <message>
        <source>add &apos;%1: images/%1&apos; (a folder, a .txt list or a list of folders)</source>
        <translation>添加“%1: images/%1”（一个文件夹、一个 .txt 列表或文件夹列表）</translation>
    </message>
    <message>
        <source>expected a folder, a .txt list of images or a list of those, got %1</source>
        <translation>应为文件夹、图像的 .txt 列表或它们组成的列表，实际为 %1</translation>
    </message>
    <message>
        <source>write e.g. &apos;%1: images/%1&apos;</source>
        <translation>例如写成“%1: images/%1”</translation>
    </message>
    <message>
        <source>expected a path, got %1</source>
        <translation>应为路径，实际为 %1</translation>
    </message>
    <message>
        <source>write a folder or a .txt file, relative to &apos;path&apos;</source>
        <translation>写一个相对于“path”的文件夹或 .txt 文件</translation>
    </message>
    <message>
        <source>&apos;%1&apos; does not exist; used &apos;%2&apos; (%3) as Ultralytics does for Roboflow exports</source>
        <translation>“%1”不存在；已按 Ultralytics 对 Roboflow 导出的处理方式使用“%2”（%3）</translation>
    </message>
    <message>
        <source>&apos;%1&apos; does not exist (resolved to %2)</source>
        <translation>“%1”不存在（解析为 %2）</translation>
    </message>
    <message>
        <source>relative paths are read against &apos;path&apos; (%1); fix &apos;path&apos; or &apos;%2&apos;</source>
        <translation>相对路径相对于“path”（%1）解析；请改正“path”或“%2”</translation>
    </message>
    <message>
        <source>expected a number of classes (1 or more), got %1</source>
        <translation>应为类别数（1 或更多），实际为 %1</translation>
    </message>
    <message>
        <source>write the number of classes, or leave nc out and list &apos;names&apos;</source>
        <translation>写出类别数，或省略 nc 并列出“names”</translation>
    </message>
    <message>
        <source>nc says %1 classes but &apos;names&apos; lists %2</source>
        <translation>nc 为 %1 个类别，但“names”列出了 %2 个</translation>
    </message>
    <message>
        <source>make nc equal to the number of names, or remove nc</source>
        <translation>使 nc 等于名称个数，或删除 nc</translation>
    </message>
    <message>
        <source>the list of class names is empty</source>
        <translation>类别名称列表为空</translation>
    </message>
    <message>
        <source>write one name per class</source>
        <translation>每个类别写一个名称</translation>
    </message>
    <message>
        <source>no &apos;names&apos; given; the classes are called class0 .. class%1</source>
        <translation>未给出“names”；类别名为 class0 .. class%1</translation>
    </message>
    <message>
        <source>add &apos;names:&apos; to see real class names in results</source>
        <translation>添加“names:”以在结果中看到真实的类别名称</translation>
    </message>
    <message>
        <source>the class names are missing</source>
        <translation>缺少类别名称</translation>
    </message>
    <message>
        <source>add &apos;names: [first, second, ...]&apos; (or &apos;nc: N&apos;)</source>
        <translation>添加“names: [first, second, ...]”（或“nc: N”）</translation>
    </message>
    <message>
        <source>expected a class name, got %1</source>
        <translation>应为类别名称，实际为 %1</translation>
    </message>
    <message>
        <source>expected a list of class names or a map {0: name, 1: name}, got %1</source>
        <translation>应为类别名称列表或映射 {0: name, 1: name}，实际为 %1</translation>
    </message>
    <message>
        <source>write e.g. &apos;names: [cat, dog]&apos;</source>
        <translation>例如写成“names: [cat, dog]”</translation>
    </message>
    <message>
        <source>a class id must be a whole number from 0, got %1</source>
        <translation>类别编号必须是从 0 开始的整数，实际为 %1</translation>
    </message>
    <message>
        <source>number the classes 0, 1, 2 ...</source>
        <translation>按 0、1、2 … 为类别编号</translation>
    </message>
    <message>
        <source>expected the name of class %1, got %2</source>
        <translation>应为类别 %1 的名称，实际为 %2</translation>
    </message>
    <message>
        <source>write &apos;%1: name&apos;</source>
        <translation>写成“%1: name”</translation>
    </message>
    <message>
        <source>class id %1 appears twice</source>
        <translation>类别编号 %1 出现了两次</translation>
    </message>
    <message>
        <source>give every class its own id</source>
        <translation>为每个类别分配各自的编号</translation>
    </message>
    <message>
        <source>class ids must run 0..N-1 without gaps; id %1 is missing</source>
        <translation>类别编号必须连续为 0..N-1；缺少编号 %1</translation>
    </message>
    <message>
        <source>renumber the classes or add class %1</source>
        <translation>重新为类别编号，或添加类别 %1</translation>
    </message>
    <message>
        <source>the YAML directive needs exactly one argument</source>
        <translation>%YAML 指令必须正好有一个参数</translation>
    </message>
    <message>
        <source>the YAML version is too new</source>
        <translation>YAML 版本过新</translation>
    </message>
    <message>
        <source>the YAML directive appears twice</source>
        <translation>%YAML 指令出现了两次</translation>
    </message>
    <message>
        <source>a TAG directive needs exactly two arguments</source>
        <translation>%TAG 指令必须正好有两个参数</translation>
    </message>
    <message>
        <source>the same TAG directive appears twice</source>
        <translation>同一个 %TAG 指令出现了两次</translation>
    </message>
    <message>
        <source>a tag handle holds a character not allowed</source>
        <translation>标签句柄中有不允许的字符</translation>
    </message>
    <message>
        <source>a tag has no suffix</source>
        <translation>标签缺少后缀</translation>
    </message>
    <message>
        <source>a verbatim tag &apos;!&lt;...&gt;&apos; is not closed</source>
        <translation>逐字标签“!&lt;...&gt;”没有闭合</translation>
    </message>
    <message>
        <source>a map ends in the wrong place (check the indentation)</source>
        <translation>映射在错误的位置结束（请检查缩进）</translation>
    </message>
    <message>
        <source>a map opened with &apos;{&apos; is not closed with &apos;}&apos;</source>
        <translation>以“{”开始的映射没有用“}”闭合</translation>
    </message>
    <message>
        <source>a list ends in the wrong place (check the indentation)</source>
        <translation>列表在错误的位置结束（请检查缩进）</translation>
    </message>
    <message>
        <source>a list opened with &apos;[&apos; is not closed with &apos;]&apos;</source>
        <translation>以“[”开始的列表没有用“]”闭合</translation>
    </message>
    <message>
        <source>one value has two tags</source>
        <translation>同一个值有两个标签</translation>
    </message>
    <message>
        <source>one value has two anchors</source>
        <translation>同一个值有两个锚点</translation>
    </message>
    <message>
        <source>one value has two aliases</source>
        <translation>同一个值有两个别名</translation>
    </message>
    <message>
        <source>an alias &apos;*name&apos; cannot have content or a tag</source>
        <translation>别名“*名称”不能带内容或标签</translation>
    </message>
    <message>
        <source>an escape like &apos;\x41&apos; holds a character that is not a hexadecimal digit</source>
        <translation>“\x41”这类转义中有不是十六进制数字的字符</translation>
    </message>
    <message>
        <source>a character YAML does not expect here</source>
        <translation>此处出现了 YAML 不接受的字符</translation>
    </message>
    <message>
        <source>a document marker (&apos;---&apos; or &apos;...&apos;) inside a value</source>
        <translation>值中出现了文档标记（“---”或“...”）</translation>
    </message>
    <message>
        <source>the file ends inside a quoted value (a closing quote is missing)</source>
        <translation>文件在带引号的值中途结束（缺少结束引号）</translation>
    </message>
    <message>
        <source>a value holds a character not allowed there</source>
        <translation>值中有此处不允许的字符</translation>
    </message>
    <message>
        <source>a tab in the indentation (YAML indents with spaces only)</source>
        <translation>缩进中有制表符（YAML 只能用空格缩进）</translation>
    </message>
    <message>
        <source>a &apos;]&apos; or &apos;}&apos; without its opening bracket</source>
        <translation>“]”或“}”没有对应的开括号</translation>
    </message>
    <message>
        <source>a list item &apos;- &apos; where none may stand (check the indentation)</source>
        <translation>此处不能出现列表项“- ”（请检查缩进）</translation>
    </message>
    <message>
        <source>a key where none may stand (check the indentation)</source>
        <translation>此处不能出现键（请检查缩进）</translation>
    </message>
    <message>
        <source>a &apos;:&apos; where no value may stand (a second colon on the line, or the indentation?)</source>
        <translation>此处的“:”后不能跟值（这一行是否多了一个冒号，或者缩进不对？）</translation>
    </message>
    <message>
        <source>&apos;*&apos; is not followed by an alias name</source>
        <translation>“*”后面缺少别名</translation>
    </message>
    <message>
        <source>&apos;&amp;&apos; is not followed by an anchor name</source>
        <translation>“&amp;”后面缺少锚点名</translation>
    </message>
    <message>
        <source>an alias name holds a character not allowed</source>
        <translation>别名中有不允许的字符</translation>
    </message>
    <message>
        <source>an anchor name holds a character not allowed</source>
        <translation>锚点名中有不允许的字符</translation>
    </message>
    <message>
        <source>a block value (&apos;|&apos; or &apos;&gt;&apos;) cannot have an indentation of 0</source>
        <translation>块值（“|”或“&gt;”）的缩进不能为 0</translation>
    </message>
    <message>
        <source>an unexpected character in a block value (&apos;|&apos; or &apos;&gt;&apos;)</source>
        <translation>块值（“|”或“&gt;”）中有意外的字符</translation>
    </message>
    <message>
        <source>the same alias is given to several values</source>
        <translation>同一个别名被赋给了多个值</translation>
    </message>
    <message>
        <source>an alias refers to an anchor not defined</source>
        <translation>别名引用了未定义的锚点</translation>
    </message>
    <message>
        <source>the YAML version &apos;%1&apos; is not understood</source>
        <translation>无法识别 YAML 版本“%1”</translation>
    </message>
    <message>
        <source>&apos;%1&apos; is not a valid unicode character</source>
        <translation>“%1”不是有效的 Unicode 字符</translation>
    </message>
    <message>
        <source>unknown escape &apos;\%1&apos; in a double-quoted value</source>
        <translation>双引号值中有未知的转义“\%1”</translation>
    </message>
    <message>
        <source>YAML syntax error</source>
        <translation>YAML 语法错误</translation>
    </message>
    <message>
        <source>YAML syntax error at line %1</source>
        <translation>YAML 语法错误，位于第 %1 行</translation>
    </message>
    <message>
        <source>YAML syntax error at line %1, column %2</source>
        <translation>YAML 语法错误，位于第 %1 行第 %2 列</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>no model file %1; choose a model from the list, or give the path of a model YAML or weights file</source>
        <translation>找不到模型文件 %1；请从列表中选择模型，或给出模型 YAML 或权重文件的路径</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
</context>
<context>
    <name>FailureWording</name>
    <message>
        <source>The settings ask for more than this machine has:
%1
Lower them, or start again and choose to go on anyway.</source>
        <translation>这些设置超出了本机的能力：
%1
请调低设置，或重新开始并选择仍然继续。</translation>
    </message>
    <message>
        <source>The data set %1 names &apos;%2&apos; as its path, which holds more than %3 files, so the scan stopped. Point path at the data set&apos;s own folder, or start again and confirm the scan.</source>
        <translation>数据集 %1 的根路径是“%2”，其下的文件超过 %3 个，因此扫描已停止。请把根路径指向数据集自己的文件夹，或重新开始并确认扫描。</translation>
    </message>
    <message>
        <source>Out of memory in the %1 of epoch %2, batch %3, and no fix was chosen. The last weights are in %4; lower batch or image size, or set &quot;on out of memory&quot; to apply the best fix, and resume.</source>
        <translation>第 %2 轮第 %3 批在%1时内存不足，且未选择修复。最后的权重保存在 %4；请降低批大小或图像尺寸，或将“内存不足时”设为自动应用最佳修复，然后继续训练。</translation>
    </message>
    <message>
        <source>Out of memory while validating epoch %1, and no fix was chosen. Lower the validation batch and resume.</source>
        <translation>验证第 %1 轮时内存不足，且未选择修复。请降低验证批大小后继续训练。</translation>
    </message>
    <message>
        <source>Out of memory while writing %1; the previous checkpoint is kept. Free host memory (fewer workers, no image cache) and resume.</source>
        <translation>写入 %1 时内存不足；上一个检查点已保留。请释放主机内存（减少工作线程、不缓存图像）后继续训练。</translation>
    </message>
    <message>
        <source>Out of memory while setting up the run: the model does not fit, so raise the memory budget or use a smaller model.</source>
        <translation>准备训练时内存不足：模型放不下，请提高内存预算或换用更小的模型。</translation>
    </message>
    <message>
        <source>Out of memory %1 times in a row without a completed step; the run gave up.</source>
        <translation>连续 %1 次内存不足且没有完成任何一步；训练已放弃。</translation>
    </message>
    <message>
        <source>A memory budget of %1 is too small for %2 at %3 px whatever the batch, AMP, checkpointing or image size: set the budget to %4 MiB or more (or use a smaller model) and start again.</source>
        <translation>%1 的内存预算对 %3 px 的 %2 来说太小，无论批大小、AMP、检查点重计算或图像尺寸如何都放不下：请把预算设为 %4 MiB 或更多（或换用更小的模型）后重新开始。</translation>
    </message>
    <message>
        <source>A memory budget of %1 is too small: the weights, optimizer state and EMA copy of %2 at %3 px do not fit in it, so raise the budget (or remove it) and start again.</source>
        <translation>%1 的内存预算太小：%3 px 的 %2 的权重、优化器状态和 EMA 副本都放不下，请提高预算（或取消预算）后重新开始。</translation>
    </message>
    <message>
        <source>Cannot resume: %1 does not exist.</source>
        <translation>无法继续训练：%1 不存在。</translation>
    </message>
    <message>
        <source>Cannot resume: no run with weights/last.pt under %1.</source>
        <translation>无法继续训练：%1 下没有带 weights/last.pt 的训练。</translation>
    </message>
    <message>
        <source>Cannot resume: the checkpoint %1 is damaged or incomplete (%2).</source>
        <translation>无法继续训练：检查点 %1 已损坏或不完整（%2）。</translation>
    </message>
    <message>
        <source>Cannot resume: the checkpoint %1 and its backup %2 are both damaged or incomplete, so start a new run (without resume).</source>
        <translation>无法继续训练：检查点 %1 及其备份 %2 都已损坏或不完整，请开始新的训练（不继续）。</translation>
    </message>
    <message>
        <source>Cannot write the checkpoint %1: %2</source>
        <translation>无法写入检查点 %1：%2</translation>
    </message>
    <message>
        <source>The data loader failed: %1</source>
        <translation>数据加载失败：%1</translation>
    </message>
    <message>
        <source>The validation data loader failed: %1</source>
        <translation>验证数据加载失败：%1</translation>
    </message>
    <message>
        <source>Cannot create the built-in data set: %1</source>
        <translation>无法创建内置数据集：%1</translation>
    </message>
    <message>
        <source>The fix &apos;%1&apos; gave invalid settings:
%2</source>
        <translation>修复“%1”得到了无效的设置：
%2</translation>
    </message>
    <message>
        <source>The run was ended: %1</source>
        <translation>训练已被终止：%1</translation>
    </message>
    <message>
        <source>The data set&apos;s description (data.yaml) has problems; fix the lines below and start again:
%1</source>
        <translation>数据集的描述文件（data.yaml）有问题；请修正下面列出的行后重新开始：
%1</translation>
    </message>
    <message>
        <source>The training split has no usable image; check the data set (the Data page lists what is wrong):
%1</source>
        <translation>训练集中没有可用的图像；请检查数据集（“数据”页会列出问题）：
%1</translation>
    </message>
    <message>
        <source>The data-parallel launch settings are wrong, so the run cannot start: %1</source>
        <translation>数据并行的启动设置有误，训练无法开始：%1</translation>
    </message>
    <message>
        <source>The ranks of the data-parallel run could not connect: %1. Start again; if it repeats, set the number of processes to 1.</source>
        <translation>数据并行训练的各进程无法互相连接：%1。请重新开始；如果再次出现，请把进程数设为 1。</translation>
    </message>
    <message>
        <source>The device &quot;%1&quot; cannot be used: %2. Choose another device in Settings.</source>
        <translation>无法使用设备“%1”：%2。请在“设置”中选择其他设备。</translation>
    </message>
    <message>
        <source>The model %1 cannot be built; fix the lines below or choose another model:
%2</source>
        <translation>无法构建模型 %1；请修正下面列出的行，或选择其他模型：
%2</translation>
    </message>
    <message>
        <source>The starting weights %1 cannot be loaded: %2</source>
        <translation>无法加载起始权重 %1：%2</translation>
    </message>
    <message>
        <source>Another Headroom process (PID %2) is writing the run folder %1. Wait for it to end, or choose another run name.</source>
        <translation>另一个 Headroom 进程（PID %2）正在写入运行文件夹 %1。请等待它结束，或选择其他运行名称。</translation>
    </message>
    <message>
        <source>The run folder cannot be written: %1. Choose another project folder in Settings, or free disk space.</source>
        <translation>无法写入运行文件夹：%1。请在“设置”中选择其他项目文件夹，或释放磁盘空间。</translation>
    </message>
    <message>
        <source>Cannot resume: the settings stored in the checkpoint %1 are unusable:
%2</source>
        <translation>无法继续训练：检查点 %1 中保存的设置不可用：
%2</translation>
    </message>
    <message>
        <source>Rank 0&apos;s fix could not be read by this rank:
%1</source>
        <translation>本进程无法读取 0 号进程发来的修复：
%1</translation>
    </message>
    <message>
        <source>The run stopped on an unexpected error: %1</source>
        <translation>训练因意外错误而停止：%1</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>rank %1 of %2 waited %3 s at %4, and only %5 of the %2 processes joined</source>
        <translation>第 %1 个进程（共 %2 个）在 %4 等待了 %3 秒，只有 %5 个进程加入（共 %2 个）</translation>
    </message>
    <message>
        <source>rank %1 of %2 stopped waiting at %3: %4</source>
        <translation>第 %1 个进程（共 %2 个）在 %3 停止了等待：%4</translation>
    </message>
    <message>
        <source>rank %1 of %2 could not reach %3; the network library said: %4</source>
        <translation>第 %1 个进程（共 %2 个）无法连接到 %3；网络库报告（原文）：%4</translation>
    </message>
</context>
<context>
    <name>FitWording</name>
    <message>
        <source>no checkpointing</source>
        <translation>不使用梯度检查点</translation>
    </message>
    <message>
        <source>checkpointing of the backbone</source>
        <translation>对骨干网络使用梯度检查点</translation>
    </message>
    <message>
        <source>checkpointing of all blocks</source>
        <translation>对所有模块使用梯度检查点</translation>
    </message>
    <message>
        <source>image size %1, AMP %2, %3</source>
        <translation>图像尺寸 %1，AMP %2，%3</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开启</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>turned AMP on (batch 1 did not fit without it)</source>
        <translation>开启了 AMP（不开启时连批大小 1 都放不下）</translation>
    </message>
    <message>
        <source>turned gradient checkpointing on (batch 1 did not fit with AMP alone)</source>
        <translation>开启了梯度检查点（只开启 AMP 时批大小 1 仍放不下）</translation>
    </message>
    <message>
        <source>batch 1 with %1 does not fit even at %2 px</source>
        <translation>批大小 1 在“%1”下即使降到 %2 px 也放不下</translation>
    </message>
    <message>
        <source>lowered the image size to %1 px (batch 1 did not fit at %2 px; the largest multiple of 32 that fits, found by bisection)</source>
        <translation>把图像尺寸降到 %1 px（批大小 1 在 %2 px 时放不下；这是用二分查找得到的、能放下的最大的 32 的倍数）</translation>
    </message>
    <message>
        <source>batch %1 is the largest that fits (%2): training peak %3, validation peak %4 of %5 (90% of %6)</source>
        <translation>批大小 %1 是能放下的最大值（%2）：训练峰值 %3，验证峰值 %4，上限 %5（%6 的 90%）</translation>
    </message>
    <message>
        <source>accumulating %1 batches keeps the nominal batch of %2</source>
        <translation>累积 %1 个批次，保持名义批大小 %2</translation>
    </message>
    <message>
        <source>the weights (%1), gradients (%2), optimizer state (%3) and EMA (%4) of %5 take %6 whatever the batch, image size, AMP or checkpointing: more than %7 (90% of %8), so no variant was tried</source>
        <translation>%5 的权重（%1）、梯度（%2）、优化器状态（%3）和 EMA（%4）共占 %6，无论批大小、图像尺寸、AMP 或梯度检查点如何都不会变：已超过 %7（%8 的 90%），因此没有尝试任何方案</translation>
    </message>
    <message>
        <source>batch %1 × accumulate %2, %3: predicted peak %4 of a %5 budget</source>
        <translation>批大小 %1 × 累积 %2，%3：预测峰值 %4，预算 %5</translation>
    </message>
    <message>
        <source>batch %1 as configured</source>
        <translation>按设置使用批大小 %1</translation>
    </message>
    <message>
        <source>a smaller model scale</source>
        <translation>更小的模型规模</translation>
    </message>
    <message>
        <source>freezing layers (no gradients or optimizer state for them)</source>
        <translation>冻结部分层（被冻结的层没有梯度和优化器状态）</translation>
    </message>
    <message>
        <source>%1, %2 or %3</source>
        <translation>%1、%2 或 %3</translation>
    </message>
    <message>
        <source>SGD instead of Adam/AdamW (one state tensor per weight, not two)</source>
        <translation>用 SGD 代替 Adam/AdamW（每个权重只有一个状态张量，而不是两个）</translation>
    </message>
    <message>
        <source>%1 or %2</source>
        <translation>%1 或 %2</translation>
    </message>
    <message>
        <source>Nothing fits in %1: the weights, gradients, optimizer state and EMA of %2 alone need %3 whatever the batch, image size, AMP or checkpointing, so the smallest budget that would work is %4 (batch 1 with %5 needs %6); below it, use %7.</source>
        <translation>%1 内放不下任何设置：仅 %2 的权重、梯度、优化器状态和 EMA 就需要 %3，无论批大小、图像尺寸、AMP 或梯度检查点如何都不会变，因此最小可行预算为 %4（批大小 1、%5 需要 %6）；预算低于此值时，请改用%7。</translation>
    </message>
    <message>
        <source>Nothing fits in %1: even batch 1 with %2 needs %3 (batch 1 as configured needs %4), so the smallest budget that would work is %5; set at least that, or use a smaller model.</source>
        <translation>%1 内放不下任何设置：即使批大小 1、%2 也需要 %3（按当前设置批大小 1 需要 %4），因此最小可行预算为 %5；请至少设置这么多，或改用更小的模型。</translation>
    </message>
</context>
<context>
    <name>FixWording</name>
    <message>
        <source>batch %1 + accumulate %2 (nominal batch %3)</source>
        <translation>批大小 %1 + 累积 %2 步（名义批大小 %3）</translation>
    </message>
    <message>
        <source>AMP (fp16 with loss scaling)</source>
        <translation>AMP（fp16，带损失缩放）</translation>
    </message>
    <message>
        <source>AMP (bf16 autocast)</source>
        <translation>AMP（bf16 自动混合精度）</translation>
    </message>
    <message>
        <source>gradient checkpointing of all blocks</source>
        <translation>对所有模块使用梯度检查点</translation>
    </message>
    <message>
        <source>gradient checkpointing of the backbone</source>
        <translation>对主干网络使用梯度检查点</translation>
    </message>
    <message>
        <source>image size %1</source>
        <translation>图像尺寸 %1</translation>
    </message>
    <message>
        <source>freeze the backbone (layers 0-%1)</source>
        <translation>冻结主干网络（第 0-%1 层）</translation>
    </message>
    <message>
        <source>model scale %1 instead of %2</source>
        <translation>模型规模 %1（原为 %2）</translation>
    </message>
    <message>
        <source>SGD instead of auto (AdamW for short runs)</source>
        <translation>用 SGD 代替自动选择（短训练时为 AdamW）</translation>
    </message>
    <message>
        <source>SGD instead of %1</source>
        <translation>用 SGD 代替 %1</translation>
    </message>
    <message>
        <source>optimizer state in host memory</source>
        <translation>优化器状态放在主机内存</translation>
    </message>
    <message>
        <source>validation batch %1</source>
        <translation>验证批大小 %1</translation>
    </message>
    <message>
        <source>chunked assignment: %1 boxes at a time (now %2)</source>
        <translation>分块标签分配：每次 %1 个框（当前 %2）</translation>
    </message>
    <message>
        <source>%1 devices, data parallel, optimizer state sharded</source>
        <translation>%1 个设备，数据并行，优化器状态分片</translation>
    </message>
    <message>
        <source>release cached blocks and retry</source>
        <translation>释放缓存块后重试</translation>
    </message>
    <message>
        <source>host fix: image cache on disk instead of RAM</source>
        <translation>主机修复：图像缓存放在磁盘而非内存</translation>
    </message>
    <message>
        <source>host fix: %1 loader workers instead of %2</source>
        <translation>主机修复：%1 个加载线程（原为 %2）</translation>
    </message>
    <message>
        <source>host fix: mosaic and mixup off</source>
        <translation>主机修复：关闭 mosaic 和 mixup</translation>
    </message>
    <message>
        <source>host fix: mosaic off</source>
        <translation>主机修复：关闭 mosaic</translation>
    </message>
    <message>
        <source>activations scale with the batch; accumulating %1 steps keeps the nominal batch</source>
        <translation>激活值随批大小增长；累积 %1 步保持名义批大小</translation>
    </message>
    <message>
        <source> (the validation batch, 2 × batch, shrinks too)</source>
        <translation type="vanished">（验证批大小为 2 × 批大小，也随之减小）</translation>
    </message>
    <message>
        <source>activations are kept in 16 bits instead of 32</source>
        <translation>激活值以 16 位而非 32 位保存</translation>
    </message>
    <message>
        <source>wrapped blocks keep only their inputs and recompute the rest in backward</source>
        <translation>被包装的模块只保留输入，其余在反向传播时重新计算</translation>
    </message>
    <message>
        <source>activations scale with the pixel count (%1% of now)</source>
        <translation>激活值随像素数增长（为当前的 %1%）</translation>
    </message>
    <message>
        <source>no gradients, optimizer state or saved activations for the backbone</source>
        <translation>主干网络不再有梯度、优化器状态和保存的激活值</translation>
    </message>
    <message>
        <source>fewer and narrower layers: less of everything</source>
        <translation>层更少、更窄：各部分内存都更少</translation>
    </message>
    <message>
        <source>SGD keeps one state tensor per weight (momentum), Adam/AdamW two</source>
        <translation>SGD 每个权重保存一个状态张量（动量），Adam/AdamW 保存两个</translation>
    </message>
    <message>
        <source>the optimizer state leaves the device</source>
        <translation>优化器状态移出设备</translation>
    </message>
    <message>
        <source>validation activations scale with its batch (now %1)</source>
        <translation>验证时的激活值随其批大小增长（当前 %1）</translation>
    </message>
    <message>
        <source>the data set&apos;s boxes per image are unknown</source>
        <translation>数据集中每张图像的框数未知</translation>
    </message>
    <message>
        <source>up to %1 boxes per image</source>
        <translation>每张图像最多 %1 个框</translation>
    </message>
    <message>
        <source>the label assigner compares each box with all %1 anchors of every image at once; %2, taken %3 at a time, need %4× less for its temporaries</source>
        <translation>标签分配器一次将每个框与每张图像的全部 %1 个锚点比较；%2，每次取 %3 个，临时张量所需内存减少到 1/%4</translation>
    </message>
    <message>
        <source>each device holds 1/%1 of the batch and of the optimizer state</source>
        <translation>每个设备只持有批次和优化器状态的 1/%1</translation>
    </message>
    <message>
        <source>the allocator held %1 in cached blocks that the failed request could not use (fragmentation); the step itself needed %2</source>
        <translation>分配器在缓存块中持有 %1，失败的请求无法使用它们（碎片化）；该步本身需要 %2</translation>
    </message>
    <message>
        <source>the decoded images of the whole data set leave host RAM</source>
        <translation>整个数据集的解码图像不再占用主机内存</translation>
    </message>
    <message>
        <source>each worker holds batches being prepared in host RAM</source>
        <translation>每个加载线程都在主机内存中持有正在准备的批次</translation>
    </message>
    <message>
        <source>mosaic assembles a 2 × imgsz canvas from four images per sample</source>
        <translation>mosaic 为每个样本用四张图像拼成 2 × 图像尺寸的画布</translation>
    </message>
    <message>
        <source>same mAP within noise: accumulation keeps the nominal batch</source>
        <translation>mAP 在噪声范围内不变：累积保持了名义批大小</translation>
    </message>
    <message>
        <source>slightly lower mAP possible: BatchNorm statistics over %1 images are noisy</source>
        <translation>mAP 可能略低：基于 %1 张图像的 BatchNorm 统计量噪声较大</translation>
    </message>
    <message>
        <source>mAP within noise in published runs; fp16 needs loss scaling, which the trainer does</source>
        <translation>已发表的训练中 mAP 在噪声范围内；fp16 需要损失缩放，训练器会自动进行</translation>
    </message>
    <message>
        <source>bf16 keeps fp32&apos;s range but 8 bits of mantissa: mAP within noise in published mixed-precision runs</source>
        <translation>bf16 保留 fp32 的数值范围，但尾数只有 8 位：已发表的混合精度训练中 mAP 在噪声范围内</translation>
    </message>
    <message>
        <source>none: the same computation, recomputed (BatchNorm statistics are updated once)</source>
        <translation>无：相同的计算，只是重新计算（BatchNorm 统计量只更新一次）</translation>
    </message>
    <message>
        <source>lower recall on small objects: every object shrinks to %1% of its size, and ones under ~8 px vanish at stride 8</source>
        <translation>小目标召回率降低：每个目标缩小到原尺寸的 %1%，小于约 8 像素的目标在步长 8 下消失</translation>
    </message>
    <message>
        <source>the backbone keeps its pretrained features (usual fine-tuning practice); lower mAP when the data differs from the pretraining set</source>
        <translation>主干网络保留预训练特征（常见的微调做法）；数据与预训练集差异大时 mAP 会降低</translation>
    </message>
    <message>
        <source>the backbone stops learning where it is now; from scratch this costs much accuracy</source>
        <translation>主干网络停止在当前状态学习；从头训练时会损失大量精度</translation>
    </message>
    <message>
        <source>a smaller model learns less; training restarts from scratch (the learned weights do not fit another size)</source>
        <translation>较小的模型学到的更少；训练从头开始（已学权重不适用于其他规模）</translation>
    </message>
    <message>
        <source>different dynamics: SGD usually needs a higher lr0 (Ultralytics&apos; auto rule uses SGD for long runs, AdamW for short ones)</source>
        <translation>训练动态不同：SGD 通常需要更高的 lr0（Ultralytics 的自动规则在长训练中用 SGD，短训练中用 AdamW）</translation>
    </message>
    <message>
        <source>none: the same update, computed elsewhere</source>
        <translation>无：相同的更新，只是在别处计算</translation>
    </message>
    <message>
        <source>none: validation results do not depend on its batch</source>
        <translation>无：验证结果与其批大小无关</translation>
    </message>
    <message>
        <source>no accuracy effect: the same targets (the slices&apos; results are combined exactly)</source>
        <translation>不影响精度：目标相同（各分块的结果精确合并）</translation>
    </message>
    <message>
        <source>same nominal batch; BatchNorm statistics per device unless sync_bn</source>
        <translation>名义批大小不变；除非启用 sync_bn，BatchNorm 统计量按设备计算</translation>
    </message>
    <message>
        <source>less augmentation: mosaic is one of YOLO&apos;s main augmentations (Ultralytics turns it off only for the last close_mosaic epochs)</source>
        <translation>数据增强减少：mosaic 是 YOLO 的主要增强之一（Ultralytics 只在最后 close_mosaic 个轮次关闭它）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>.</source>
        <translation>。</translation>
    </message>
    <message>
        <source>Host memory is not predicted; this frees host RAM, not device memory.</source>
        <translation>主机内存不做预测；此项释放的是主机内存，而非设备内存。</translation>
    </message>
    <message>
        <source>Predictions scaled by %1: the estimator predicted less than the failed step needed.</source>
        <translation>预测值已乘以 %1：估算器的预测低于失败步骤实际所需。</translation>
    </message>
    <message>
        <source>none expected</source>
        <translation>预计无影响</translation>
    </message>
    <message>
        <source>measured here</source>
        <translation>本机实测</translation>
    </message>
    <message>
        <source>published figure</source>
        <translation>已发表的数据</translation>
    </message>
    <message>
        <source>FLOP count</source>
        <translation>按浮点运算量计算</translation>
    </message>
    <message>
        <source>assumption, not measured</source>
        <translation>假设值，未测量</translation>
    </message>
    <message>
        <source>not measured</source>
        <translation>未测量</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>Memory figure: %1</source>
        <translation>内存数值来源：%1</translation>
    </message>
    <message>
        <source>Speed figure: %1</source>
        <translation>速度数值来源：%1</translation>
    </message>
    <message>
        <source>Accuracy figure: %1</source>
        <translation>精度数值来源：%1</translation>
    </message>
    <message>
        <source>(measured here)</source>
        <translation>（本机实测）</translation>
    </message>
    <message>
        <source>(not measured)</source>
        <translation>（未测量）</translation>
    </message>
    <message>
        <source>(estimate: published figure, not measured here)</source>
        <translation>（估计值：已发表的数据，未在本机测量）</translation>
    </message>
    <message>
        <source>(estimate: FLOP count, not measured here)</source>
        <translation>（估计值：按浮点运算量计算，未在本机测量）</translation>
    </message>
    <message>
        <source>(estimate: assumption, not measured here)</source>
        <translation>（估计值：假设值，未在本机测量）</translation>
    </message>
    <message>
        <source>the published YOLOv9-c memory-strategy table</source>
        <translation>已发表的 YOLOv9-c 内存策略表</translation>
    </message>
    <message>
        <source>per-step overhead fitted to the batch 16 vs batch 4 + accumulate 4 epoch times of %1 (%2)</source>
        <translation>每步固定开销按%1中批大小 16 与批大小 4 + 累积 4 步的每轮耗时拟合（%2）</translation>
    </message>
    <message>
        <source>assumed per-step overhead of half an image&apos;s time (%1), not measured here</source>
        <translation>假设每步固定开销为半张图像的耗时（%1），未在本机测量</translation>
    </message>
    <message>
        <source>%1: batch 4 + accumulate 4 mAP50 0.679 vs batch 16 0.682</source>
        <translation>%1：批大小 4 + 累积 4 步 mAP50 为 0.679，批大小 16 为 0.682</translation>
    </message>
    <message>
        <source>%1: batch 2 + AMP + accumulate 8 mAP50 0.675 vs batch 16 0.682</source>
        <translation>%1：批大小 2 + AMP + 累积 8 步 mAP50 为 0.675，批大小 16 为 0.682</translation>
    </message>
    <message>
        <source>%1: batch 4 + AMP 15 min vs batch 4 + accumulate 4 21 min</source>
        <translation>%1：批大小 4 + AMP 每轮 15 分钟，批大小 4 + 累积 4 步为 21 分钟</translation>
    </message>
    <message>
        <source>assumed for bf16 autocast on CPU, not measured here</source>
        <translation>CPU 上 bf16 自动混合精度的假设值，未在本机测量</translation>
    </message>
    <message>
        <source>%1: batch 4 + AMP mAP50 0.680 vs 0.682</source>
        <translation>%1：批大小 4 + AMP 的 mAP50 为 0.680，对比 0.682</translation>
    </message>
    <message>
        <source>no published YOLO figure for bf16 on CPU; not measured here</source>
        <translation>没有 CPU 上 bf16 训练 YOLO 的已发表数据；未在本机测量</translation>
    </message>
    <message>
        <source>one extra forward of the wrapped blocks, backward counted as 2 × forward FLOPs, the backbone as half of the forward (%1)</source>
        <translation>被包装的模块多做一次前向；反向按前向浮点运算量的 2 倍计，主干网络按前向的一半计（%1）</translation>
    </message>
    <message>
        <source>the same arithmetic (gradients tested equal), not an mAP measurement</source>
        <translation>计算相同（已测试梯度一致），并非 mAP 测量</translation>
    </message>
    <message>
        <source>convolution FLOPs scale with the pixel count (%1)</source>
        <translation>卷积的浮点运算量与像素数成正比（%1）</translation>
    </message>
    <message>
        <source>depends on this data set&apos;s object sizes; not measured</source>
        <translation>取决于本数据集的目标尺寸；未测量</translation>
    </message>
    <message>
        <source>unknown scale: no figures</source>
        <translation>未知的模型规模：没有数据</translation>
    </message>
    <message>
        <source>GFLOPs %1 vs %2 at 640 px, from Ultralytics&apos; published model table</source>
        <translation>640 px 下 GFLOPs 为 %1，对比 %2，来自 Ultralytics 已发表的模型表</translation>
    </message>
    <message>
        <source>Ultralytics&apos; published COCO val2017 mAP50-95 at 640 px: %1 vs %2</source>
        <translation>Ultralytics 已发表的 640 px COCO val2017 mAP50-95：%1，对比 %2</translation>
    </message>
    <message>
        <source>no backward through the backbone, counted as half of the forward and 2 × forward in backward (%1)</source>
        <translation>主干网络不再反向传播；主干按前向的一半计，反向按前向的 2 倍计（%1）</translation>
    </message>
    <message>
        <source>depends on the data set; not measured</source>
        <translation>取决于数据集；未测量</translation>
    </message>
    <message>
        <source>assumed: the optimizer step is a small part of a step</source>
        <translation>假设：优化器更新只占每步的一小部分</translation>
    </message>
    <message>
        <source>depends on lr0 and the data; not measured</source>
        <translation>取决于 lr0 和数据；未测量</translation>
    </message>
    <message>
        <source>assumed +15% for host copies and a CPU update per step</source>
        <translation>假设每步因主机拷贝和 CPU 上的更新多花 15%</translation>
    </message>
    <message>
        <source>on CPU the state stays in the same RAM, only outside the budget</source>
        <translation>在 CPU 上状态仍在同一内存中，只是不计入预算</translation>
    </message>
    <message>
        <source>the same arithmetic</source>
        <translation>计算相同</translation>
    </message>
    <message>
        <source>assumed: training untouched, validation a small part of an epoch</source>
        <translation>假设：训练不受影响，验证只占每轮的一小部分</translation>
    </message>
    <message>
        <source>the same arithmetic per image</source>
        <translation>每张图像的计算相同</translation>
    </message>
    <message>
        <source>the same arithmetic in %1 passes instead of %2; each more pass assumed to cost ~%3 against a step of ~%4 ms (bench loss on the developers&apos; CPU, 1 thread; %5)</source>
        <translation>相同的计算分 %1 次而不是 %2 次完成；假设每多一次约耗时 %3，而每步约 %4 ms（开发者 CPU 上 bench loss 的结果，单线程；%5）</translation>
    </message>
    <message>
        <source>identical targets (tested)</source>
        <translation>目标完全相同（已测试）</translation>
    </message>
    <message>
        <source>assumed: one cache release, refilled as it goes</source>
        <translation>假设：释放一次缓存，之后随训练重新填充</translation>
    </message>
    <message>
        <source>assumed ideal data-parallel scaling plus 10% for the all-reduce</source>
        <translation>假设数据并行理想扩展，另加 10% 的全归约开销</translation>
    </message>
    <message>
        <source>assumed +10%: images are decoded again every epoch</source>
        <translation>假设多花 10%：每轮都要重新解码图像</translation>
    </message>
    <message>
        <source>the same images</source>
        <translation>图像相同</translation>
    </message>
    <message>
        <source>assumed: slower only when the loader is the bottleneck</source>
        <translation>假设：只有数据加载成为瓶颈时才会变慢</translation>
    </message>
    <message>
        <source>assumed: mosaic&apos;s assembly is a small part of loading</source>
        <translation>假设：mosaic 拼图只占数据加载的一小部分</translation>
    </message>
    <message>
        <source>scaled by %1 to what the failed step needed</source>
        <translation>已乘以 %1，以符合失败步骤的实际需要</translation>
    </message>
    <message>
        <source>the estimator&apos;s cached probe steps on this machine (another image size scaled by the pixel count)</source>
        <translation>估算器在本机缓存的探测步骤（其他图像尺寸的结果按像素数换算）</translation>
    </message>
    <message>
        <source>host memory is not predicted</source>
        <translation>不预测主机内存</translation>
    </message>
    <message>
        <source>what the failed step needed</source>
        <translation>失败步骤实际需要的内存</translation>
    </message>
    <message>
        <source>measured here on this data set: mAP50-95 %1 (mAP50 %2) in run %3 against %4 (%5) in run %6</source>
        <translation>在本机用此数据集实测：运行 %3 的 mAP50-95 为 %1（mAP50 %2），运行 %6 为 %4（%5）</translation>
    </message>
    <message>
        <source>timed on this machine by the estimator&apos;s probe steps (CPU time, medians of 3 or more steps): %1 ms per image instead of %2 ms</source>
        <translation>由估算器的探测步骤在本机计时（CPU 时间，取至少 3 步的中位数）：每张图像 %1 ms，原为 %2 ms</translation>
    </message>
    <message>
        <source>×%1: the last run on this machine that applied this fix measured that much against its prediction</source>
        <translation>×%1：本机上一次应用此修复的运行实测值与预测值之比</translation>
    </message>
    <message>
        <source>the estimator&apos;s probe steps on this machine</source>
        <translation>估算器在本机的探测步骤</translation>
    </message>
    <message>
        <source>scaled from the failed step&apos;s measured breakdown by batch × image size; AMP assumed to keep 60% (one CPU bf16 test)</source>
        <translation>由失败步骤实测的内存构成按批大小 × 图像尺寸换算；假设 AMP 保留 60%（一次 CPU bf16 测试）</translation>
    </message>
    <message>
        <source> (validation&apos;s batch shrinks with it)</source>
        <translation>（验证批大小随之减小）</translation>
    </message>
</context>
<context>
    <name>LogWording</name>
    <message>
        <source>The label file %1 holds binary data, not text (from line %2): its image trains as a background image. Replace it with a text file of &apos;class cx cy w h&apos; lines, or delete it.</source>
        <translation>标注文件 %1 含有二进制数据而非文本（自第 %2 行起）：其图像作为背景图像参与训练。请换成每行为“类别 中心x 中心y 宽 高”的文本文件，或删除它。</translation>
    </message>
    <message>
        <source>The label file %1 holds binary data, not text (from line %2), and %3 more label files do too: their images train as background images. Replace them with text files of &apos;class cx cy w h&apos; lines, or delete them (headroom-cli data-check lists them all).</source>
        <translation>标注文件 %1 含有二进制数据而非文本（自第 %2 行起），另有 %3 个标注文件也是如此：它们的图像作为背景图像参与训练。请换成每行为“类别 中心x 中心y 宽 高”的文本文件，或删除它们（headroom-cli data-check 会全部列出）。</translation>
    </message>
    <message>
        <source>Scanning the validation images: %1 of %2</source>
        <translation>正在扫描验证图像：%1 / %2</translation>
    </message>
    <message>
        <source>Scanning the training images: %1 of %2</source>
        <translation>正在扫描训练图像：%1 / %2</translation>
    </message>
    <message>
        <source>Using the built-in data set %1</source>
        <translation>使用内置数据集 %1</translation>
    </message>
    <message>
        <source>The data set has no usable validation images; validating on the training images.</source>
        <translation>数据集中没有可用的验证图像；改用训练图像进行验证。</translation>
    </message>
    <message>
        <source>Batch -1 (Auto-fit) is resolved before the run starts; the trainer uses 16.</source>
        <translation>批次 -1（自动适配）应在运行开始前确定；训练器改用 16。</translation>
    </message>
    <message>
        <source>Optimizer auto: %1, lr=%2 momentum=%3 (%4 planned iterations)</source>
        <translation>自动选择优化器：%1，lr=%2 momentum=%3（计划 %4 次迭代）</translation>
    </message>
    <message>
        <source>Resumed %1 at epoch %2</source>
        <translation>已从第 %2 轮继续 %1</translation>
    </message>
    <message>
        <source>Stopped: the validation of epoch %1 was skipped</source>
        <translation>已停止：跳过了第 %1 轮的验证</translation>
    </message>
    <message>
        <source>Cannot write best.pt: %1</source>
        <translation>无法写入 best.pt：%1</translation>
    </message>
    <message>
        <source>Cannot write results.csv: %1</source>
        <translation>无法写入 results.csv：%1</translation>
    </message>
    <message>
        <source>Stopping early: no improvement in the last %1 epochs; the best was epoch %2</source>
        <translation>提前停止：最近 %1 轮没有改进；最好的是第 %2 轮</translation>
    </message>
    <message>
        <source>No memory probe for %1, so memory is not measured: %2</source>
        <translation>%1 没有内存探针，因此不测量内存：%2</translation>
    </message>
    <message>
        <source>Transferred %1/%2 items from %3</source>
        <translation>已从 %3 迁移 %1/%2 项</translation>
    </message>
    <message>
        <source>Most tensors did not transfer (%1 of %2 from %3): the weights were made for another architecture than %4</source>
        <translation>大多数张量未能迁移（从 %3 迁移了 %1/%2 项）：这些权重是为与 %4 不同的架构制作的</translation>
    </message>
    <message>
        <source>%1 is damaged, so the run resumes from its backup %2 (epoch %3); the damaged file is now %1.damaged. The error was: %4</source>
        <translation>%1 已损坏，因此训练从其备份 %2（第 %3 轮）继续；损坏的文件现为 %1.damaged。错误为：%4</translation>
    </message>
    <message>
        <source>The weights were trained on other classes (%1) than the data set&apos;s (%2): the class layers learn the data set&apos;s classes from scratch where the counts differ, and keep the checkpoint&apos;s meaning where they agree</source>
        <translation>这些权重训练时使用的类别（%1）与数据集的类别（%2）不同：类别数不同时，类别层从头学习数据集的类别；类别一致时，保留检查点的含义</translation>
    </message>
    <message>
        <source>Processes %1: this process was not started as one of the workers, so it trains alone; the studio or `headroom-cli train --nproc N` starts them.</source>
        <translation>进程数 %1：本进程不是作为工作进程启动的，因此单独训练；各工作进程应由工作室或命令行工具启动。</translation>
    </message>
    <message>
        <source>sync_bn: BatchNorm statistics over the batches of all %1 ranks</source>
        <translation>同步 BatchNorm：在全部 %1 个进程的批次上统计 BatchNorm</translation>
    </message>
    <message>
        <source>Batch %1 is not a multiple of the %2 ranks; each rank takes %3</source>
        <translation>批大小 %1 不是进程数 %2 的倍数；每个进程取 %3</translation>
    </message>
    <message>
        <source>%1 ranks: gradients all-reduced in %2 buckets, %3 of them launched during backward; optimizer state sharded (zero 1)</source>
        <translation>%1 个进程：梯度分 %2 个桶做全归约，其中 %3 个在反向传播期间发起；优化器状态已分片（ZeRO-1）</translation>
    </message>
    <message>
        <source>%1 ranks: gradients all-reduced in %2 buckets, %3 of them launched during backward</source>
        <translation>%1 个进程：梯度分 %2 个桶做全归约，其中 %3 个在反向传播期间发起</translation>
    </message>
    <message>
        <source>Rank %1 cannot record its memory: %2</source>
        <translation>%1 号进程无法记录其内存：%2</translation>
    </message>
    <message>
        <source>Rank %1 cannot write its optimizer shard (%2); a resumed run restarts it</source>
        <translation>%1 号进程无法写入其优化器分片（%2）；继续训练时该分片将重新开始</translation>
    </message>
    <message>
        <source>Rank %1 has no optimizer shard %2; its optimizer state starts afresh</source>
        <translation>%1 号进程没有优化器分片 %2；其优化器状态将重新开始</translation>
    </message>
    <message>
        <source>%1 image(s) could not be read this epoch and were replaced by grey images: they were moved or deleted, or their coded data is damaged (the scan reads headers only). Put them back, or check every image with headroom-cli data-check --deep before the next run.</source>
        <translation>本轮有 %1 张图像无法读取，已用灰色图像代替：它们被移动或删除，或其编码数据已损坏（扫描只读取文件头）。请放回这些文件，或在下次运行前用 headroom-cli data-check --deep 检查每张图像。</translation>
    </message>
    <message>
        <source>Cannot read %1: %2. Training goes on with a grey image without objects in its place; headroom-cli data-check --deep finds such files before training.</source>
        <translation>无法读取 %1：%2。训练继续进行，用一张没有目标的灰色图像代替它；训练前运行 headroom-cli data-check --deep 可找出这类文件。</translation>
    </message>
</context>
<context>
    <name>StartQuestion</name>
    <message>
        <source>Scan a large folder?</source>
        <translation>扫描一个很大的文件夹？</translation>
    </message>
    <message>
        <source>The data set %1 names &apos;%2&apos; as its path, which holds more than %3 files. Scanning them all reads every folder below it and can take long.

Scan them all?</source>
        <translation>数据集 %1 的根路径是“%2”，其下的文件超过 %3 个。全部扫描会读取其下的每个文件夹，可能需要很长时间。

全部扫描吗？</translation>
    </message>
    <message>
        <source>More than this machine has</source>
        <translation>超出本机能力</translation>
    </message>
    <message>
        <source>These settings ask for more than this machine has:
%1

The run may be very slow or run out of memory. Start anyway?</source>
        <translation>这些设置超出了本机的能力：
%1

训练可能非常慢或内存耗尽。仍然开始吗？</translation>
    </message>
    <message>
        <source>Not scanned: the data set&apos;s path holds more files than a data set should. Point path in data.yaml at the data set&apos;s own folder.</source>
        <translation>未扫描：数据集根路径下的文件多得不像一个数据集。请把 data.yaml 中的根路径指向数据集自己的文件夹。</translation>
    </message>
    <message>
        <source>Not started: the settings ask for more than this machine has. Lower them, or start again and choose to go on anyway.</source>
        <translation>未开始：这些设置超出了本机的能力。请调低设置，或重新开始并选择仍然继续。</translation>
    </message>
</context>
<context>
    <name>hr::ui::BarChart</name>
    <message>
        <source>Export as PNG or PDF…</source>
        <translation>导出为 PNG 或 PDF…</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>Reset view (follow the data)</source>
        <translation>重置视图（跟随数据）</translation>
    </message>
    <message>
        <source>No data yet.</source>
        <translation>尚无数据。</translation>
    </message>
</context>
<context>
    <name>hr::ui::ClassCompareTable</name>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>%1 AP50-95</source>
        <translation>%1 AP50-95</translation>
    </message>
    <message>
        <source>%1 change</source>
        <translation>%1 变化</translation>
    </message>
    <message>
        <source>AP50-95 of %1 minus that of %2, the first run</source>
        <translation>%1 的 AP50-95 减去第一个运行 %2 的</translation>
    </message>
    <message>
        <source>all classes</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <source>%1 objects; AP50 %2</source>
        <translation>%1 个目标；AP50 %2</translation>
    </message>
</context>
<context>
    <name>hr::ui::ComparePage</name>
    <message>
        <source>Add runs…</source>
        <translation>添加运行…</translation>
    </message>
    <message>
        <source>Run strategy matrix</source>
        <translation>运行策略矩阵</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Export report…</source>
        <translation>导出报告…</translation>
    </message>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <source>AMP</source>
        <translation>AMP</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>vs first</source>
        <translation>相对首行</translation>
    </message>
    <message>
        <source>Epoch (s)</source>
        <translation>每轮（秒）</translation>
    </message>
    <message>
        <source>Images/s</source>
        <translation>图像/秒</translation>
    </message>
    <message>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <source>Pareto</source>
        <translation>帕累托</translation>
    </message>
    <message>
        <source>Memory over time</source>
        <translation>内存随时间变化</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>mAP50-95 over epochs</source>
        <translation>mAP50-95 随轮次变化</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>mAP50-95 over wall time</source>
        <translation>mAP50-95 随实际时间变化</translation>
    </message>
    <message>
        <source>Strategy %1: %2 → %3</source>
        <translation>策略 %1：%2 → %3</translation>
    </message>
    <message>
        <source>Strategy %1: epoch %2/%3, mAP50-95 %4</source>
        <translation>策略 %1：第 %2/%3 轮，mAP50-95 %4</translation>
    </message>
    <message>
        <source>Strategy %1 ran out of memory in the %2 phase; recorded.</source>
        <translation>策略 %1 在 %2 阶段显存不足；已记录。</translation>
    </message>
    <message>
        <source>Run folder to add</source>
        <translation>要添加的运行文件夹</translation>
    </message>
    <message>
        <source>Folder for the report</source>
        <translation>报告所在文件夹</translation>
    </message>
    <message>
        <source>Wrote %1 and %2</source>
        <translation>已写出 %1 和 %2</translation>
    </message>
    <message>
        <source>Cannot write the report: %1</source>
        <translation>无法写出报告：%1</translation>
    </message>
    <message>
        <source>OOM (%1)</source>
        <translation>显存不足（%1）</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>%1 (claim ×%2)</source>
        <translation>%1（公开数据 ×%2）</translation>
    </message>
    <message>
        <source>%1 (claim %2)</source>
        <translation>%1（公开数据 %2）</translation>
    </message>
    <message>
        <source>Pareto front</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <source>Pick runs on the Runs page and choose &quot;Compare selected&quot;, add run folders, or edit the strategies at the left and run them on the current settings.</source>
        <translation>在“运行记录”页选择运行并点击“比较所选”，添加运行文件夹，或编辑左侧的策略并用当前设置运行它们。</translation>
    </message>
    <message>
        <source>Trains the current settings once per strategy in the list, one after another, as normal runs (B is the settings&apos; batch). An out-of-memory failure is recorded, not fixed.</source>
        <translation>按列表中的每个策略依次用当前设置训练一次，每次都是普通运行（B 为设置中的批量）。显存不足会被记录，而不会被修复。</translation>
    </message>
    <message>
        <source>Training peak</source>
        <translation>训练峰值</translation>
    </message>
    <message>
        <source>Validation peak</source>
        <translation>验证峰值</translation>
    </message>
    <message>
        <source>Training peak over the first row&apos;s; the published claim&apos;s ratio beside it</source>
        <translation>训练峰值与首行之比；旁边是公开数据的比例</translation>
    </message>
    <message>
        <source>Highest memory while validating, apart from training (a large val_batch can exceed the training peak)</source>
        <translation>验证时的最高内存，与训练分开（较大的 val_batch 可能超过训练峰值）</translation>
    </message>
    <message>
        <source>Training peak vs mAP50-95</source>
        <translation>训练峰值与 mAP50-95</translation>
    </message>
    <message>
        <source>training peak (MiB)</source>
        <translation>训练峰值 (MiB)</translation>
    </message>
    <message>
        <source>Strategy matrix</source>
        <translation>策略矩阵</translation>
    </message>
    <message>
        <source>The strategies are relative to a fixed batch B; set batch to a number first (batch -1 lets Auto-fit choose one).</source>
        <translation>策略相对于固定批量 B；请先把批量设为一个数字（批量 -1 表示由自动适配选择）。</translation>
    </message>
    <message>
        <source>The strategies have problems; fix them first:
%1</source>
        <translation>策略有问题，请先修正：
%1</translation>
    </message>
    <message>
        <source>%1 runs compared: %2 with results, %3 out of memory; ★ = Pareto front of training peak and mAP50-95.</source>
        <translation>已比较 %1 个运行：%2 个有结果，%3 个显存不足；★ = 训练峰值与 mAP50-95 的帕累托前沿。</translation>
    </message>
    <message numerus="yes">
        <source>Running %n strategies on batch %1…</source>
        <translation>
            <numerusform>正在以批量 %1 运行 %n 个策略…</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min</source>
        <translation>%1 分钟</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 strategies × %2 epochs at %3 px, batch %4: %5 epochs of training in all, one run after another.</source>
        <translation>%1 个策略 × %2 轮，图像尺寸 %3 px，批量 %4：共训练 %5 轮，逐个运行。</translation>
    </message>
    <message>
        <source>Run %1 measured %2 s per epoch with this model and image size, so this takes about %3 (batch, AMP and checkpointing change it).</source>
        <translation>运行 %1 在相同模型和图像尺寸下测得每轮 %2 秒，因此大约需要 %3（批量、AMP 和梯度检查点会改变它）。</translation>
    </message>
    <message>
        <source>No finished run of %1 at %2 px has measured the speed yet, so the time is unknown; a one-epoch run of the current settings measures it.</source>
        <translation>还没有 %1 在 %2 px 下完成的运行测得速度，因此所需时间未知；用当前设置运行一轮即可测得。</translation>
    </message>
    <message>
        <source>Start Training stays off until the matrix ends or is stopped.</source>
        <translation>在矩阵结束或被停止之前，“开始训练”不可用。</translation>
    </message>
    <message>
        <source>Run the matrix</source>
        <translation>运行矩阵</translation>
    </message>
    <message>
        <source>One curve per compared run appears here.</source>
        <translation>每个被比较的运行会在这里显示一条曲线。</translation>
    </message>
    <message>
        <source>Training loss (box + cls + dfl)</source>
        <translation>训练损失（box + cls + dfl）</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>Source: %1 (run %2). %3</source>
        <translation>来源：%1（运行 %2）。%3</translation>
    </message>
    <message>
        <source>The claim beside it: %1, for the published strategy, not this run.</source>
        <translation>旁边的说法：%1，针对已发表的策略，而非本次运行。</translation>
    </message>
    <message>
        <source>Source: the run&apos;s settings (config.yaml), not a measurement.</source>
        <translation>来源：该运行的设置（config.yaml），不是测量值。</translation>
    </message>
    <message>
        <source>The allocator&apos;s peak over the training steps (batch_end events and memory samples).</source>
        <translation>训练步骤中分配器的峰值（来自 batch_end 事件和内存采样）。</translation>
    </message>
    <message>
        <source>This run&apos;s training peak over the first row&apos;s.</source>
        <translation>本次运行的训练峰值与首行训练峰值之比。</translation>
    </message>
    <message>
        <source>The allocator&apos;s peak while validating, apart from training.</source>
        <translation>验证期间分配器的峰值，不含训练。</translation>
    </message>
    <message>
        <source>The mean wall time of its epochs (results.csv) on the machine that trained it.</source>
        <translation>在训练它的机器上各轮的平均实际耗时（results.csv）。</translation>
    </message>
    <message>
        <source>The mean images per second of its epochs (results.csv).</source>
        <translation>各轮每秒处理图像数的平均值（results.csv）。</translation>
    </message>
    <message>
        <source>On the validation images after the last epoch.</source>
        <translation>在最后一轮之后于验证图像上测得。</translation>
    </message>
    <message>
        <source>No other row has both a lower training peak and a higher mAP50-95.</source>
        <translation>没有其他行同时具有更低的训练峰值和更高的 mAP50-95。</translation>
    </message>
    <message>
        <source>Not run: the comparison was stopped before this strategy.</source>
        <translation>未运行：比较在此策略之前已停止。</translation>
    </message>
    <message>
        <source>Not run: the strategy&apos;s settings were rejected:</source>
        <translation>未运行：此策略的设置被拒绝：</translation>
    </message>
    <message>
        <source>The run folder cannot be read: %1</source>
        <translation>无法读取运行文件夹：%1</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>OOM</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>incomplete</source>
        <translation>未完成</translation>
    </message>
    <message>
        <source>invalid</source>
        <translation>无效</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Writes compare.csv, a self-contained compare.html and, when the runs have validated, compare_classes.csv (AP50-95 by class)</source>
        <translation>写入 compare.csv、独立的 compare.html，以及（运行已验证时）compare_classes.csv（按类别的 AP50-95）</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>By class</source>
        <translation>按类别</translation>
    </message>
    <message>
        <source>Each run&apos;s last validation class by class, with the change from the first run: what a memory fix cost per class.</source>
        <translation>各运行最近一次验证的逐类别结果，以及相对第一个运行的变化：显存修复在每个类别上的代价。</translation>
    </message>
</context>
<context>
    <name>hr::ui::ComparisonSession</name>
    <message>
        <source>A comparison is already running.</source>
        <translation>已有比较正在运行。</translation>
    </message>
</context>
<context>
    <name>hr::ui::ConfusionMatrixView</name>
    <message>
        <source>Background against background is not counted.</source>
        <translation>背景与背景之间不计数。</translation>
    </message>
    <message numerus="yes">
        <source>%n object(s) of %1 were missed: nothing was predicted there.</source>
        <translation>
            <numerusform>%1 的 %n 个目标被漏检：那里没有任何预测。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n prediction(s) of %1 matched no object (false positives).</source>
        <translation>
            <numerusform>%1 的 %n 个预测没有匹配到任何目标（误检）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n object(s) of %1 were found as %1.</source>
        <translation>
            <numerusform>%1 的 %n 个目标被正确识别为 %1。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n object(s) of %1 were predicted as %2.</source>
        <translation>
            <numerusform>%1 的 %n 个目标被预测为 %2。</numerusform>
        </translation>
    </message>
    <message>
        <source>That is %1% of the %2 objects of %3.</source>
        <translation>占 %3 全部 %2 个目标的 %1%。</translation>
    </message>
    <message>
        <source>No confusion matrix yet.</source>
        <translation>尚无混淆矩阵。</translation>
    </message>
    <message>
        <source>True</source>
        <translation>真实</translation>
    </message>
    <message>
        <source>Predicted</source>
        <translation>预测</translation>
    </message>
</context>
<context>
    <name>hr::ui::DataPage</name>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>note</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Open data.yaml…</source>
        <translation>打开 data.yaml…</translation>
    </message>
    <message>
        <source>Open folder…</source>
        <translation>打开文件夹…</translation>
    </message>
    <message>
        <source>Use the built-in sample</source>
        <translation>使用内置示例</translation>
    </message>
    <message>
        <source>No data set yet: open a data.yaml or a folder, drop one here, or use the built-in sample.</source>
        <translation>尚无数据集：打开 data.yaml 或文件夹、拖放到此处，或使用内置示例。</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>严重程度</translation>
    </message>
    <message>
        <source>Split</source>
        <translation>划分</translation>
    </message>
    <message>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>行</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Training images</source>
        <translation>训练图像</translation>
    </message>
    <message>
        <source>Validation images</source>
        <translation>验证图像</translation>
    </message>
    <message>
        <source>Classes</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>objects</source>
        <translation>目标</translation>
    </message>
    <message>
        <source>images</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Box size (fraction of the image)</source>
        <translation>框尺寸（占图像的比例）</translation>
    </message>
    <message>
        <source>width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <source>height</source>
        <translation>高度</translation>
    </message>
    <message>
        <source>Open data set</source>
        <translation>打开数据集</translation>
    </message>
    <message>
        <source>Data set description (*.yaml *.yml)</source>
        <translation>数据集描述 (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Open data set folder</source>
        <translation>打开数据集文件夹</translation>
    </message>
    <message>
        <source>%1 holds no data.yaml. A data set folder needs a data.yaml that names its train and val images and its classes.</source>
        <translation type="vanished">%1 中没有 data.yaml。数据集文件夹需要一个 data.yaml，写明训练和验证图像以及类别。</translation>
    </message>
    <message>
        <source>Reading %1…</source>
        <translation>正在读取 %1…</translation>
    </message>
    <message>
        <source>Preparing the built-in sample…</source>
        <translation>正在准备内置示例…</translation>
    </message>
    <message>
        <source>Data set: %1</source>
        <translation>数据集：%1</translation>
    </message>
    <message>
        <source>train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>val</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>This data.yaml cannot be used; the list below says why.</source>
        <translation>此 data.yaml 无法使用；原因见下方列表。</translation>
    </message>
    <message>
        <source>%1 classes. Training: %2 images (%3 without objects, %4 skipped), %5 objects, at most %6 in one image. Validation: %7 images, %8 objects. %9 problems listed below.</source>
        <translation>%1 个类别。训练：%2 张图像（%3 张无目标，%4 张已跳过），%5 个目标，单张图像最多 %6 个。验证：%7 张图像，%8 个目标。下方列出 %9 个问题。</translation>
    </message>
    <message>
        <source>%1
%2 objects</source>
        <translation>%1
%2 个目标</translation>
    </message>
    <message>
        <source>How to fix</source>
        <translation>修复方法</translation>
    </message>
    <message>
        <source>Objects and images per class appear here once a data set is open.</source>
        <translation>打开数据集后，这里显示每个类别的目标数和图像数。</translation>
    </message>
    <message>
        <source>How large the boxes are appears here once a data set is open.</source>
        <translation>打开数据集后，这里显示框的大小分布。</translation>
    </message>
    <message>
        <source>COCO JSON</source>
        <translation>COCO JSON</translation>
    </message>
    <message>
        <source>Pascal VOC XML</source>
        <translation>Pascal VOC XML</translation>
    </message>
    <message>
        <source>a CVAT YOLO export</source>
        <translation>CVAT 的 YOLO 导出</translation>
    </message>
    <message>
        <source>a Label Studio YOLO export</source>
        <translation>Label Studio 的 YOLO 导出</translation>
    </message>
    <message>
        <source>images with YOLO labels</source>
        <translation>带 YOLO 标注的图像</translation>
    </message>
    <message>
        <source>a Roboflow export</source>
        <translation>Roboflow 导出</translation>
    </message>
    <message>
        <source>%1 is neither a data.yaml nor a folder. Open a data.yaml, a data set folder, or an annotation tool&apos;s export folder.</source>
        <translation>%1 既不是 data.yaml 也不是文件夹。请打开 data.yaml、数据集文件夹或标注工具的导出文件夹。</translation>
    </message>
    <message>
        <source>Looking at %1…</source>
        <translation>正在查看 %1…</translation>
    </message>
    <message>
        <source>%1 holds no data.yaml and no data set Headroom recognises: a COCO JSON, Pascal VOC XML, a CVAT or Label Studio YOLO export, or images with YOLO .txt labels.</source>
        <translation>%1 中没有 data.yaml，也没有 Headroom 能识别的数据集：COCO JSON、Pascal VOC XML、CVAT 或 Label Studio 的 YOLO 导出，或带 YOLO .txt 标注的图像。</translation>
    </message>
    <message>
        <source>COCO JSON (%1)</source>
        <translation>COCO JSON（%1）</translation>
    </message>
    <message>
        <source>Pascal VOC XML (%1 annotation files in %2)</source>
        <translation>Pascal VOC XML（%2 中的 %1 个标注文件）</translation>
    </message>
    <message>
        <source>Convert the data set?</source>
        <translation>转换数据集吗？</translation>
    </message>
    <message>
        <source>%1 holds %2.

Convert it to a YOLO data set in %3? The original files stay as they are; images are linked or copied.</source>
        <translation>%1 中是%2。

要把它转换为 %3 中的 YOLO 数据集吗？原文件保持不变；图像以链接或复制方式放入。</translation>
    </message>
    <message>
        <source>Convert</source>
        <translation>转换</translation>
    </message>
    <message>
        <source>Leave out objects marked difficult</source>
        <translation>略过标记为 difficult 的目标</translation>
    </message>
    <message>
        <source>Not converted.</source>
        <translation>未转换。</translation>
    </message>
    <message>
        <source>converted from %1</source>
        <translation>由%1转换</translation>
    </message>
    <message>
        <source>Write a data.yaml</source>
        <translation>写入 data.yaml</translation>
    </message>
    <message>
        <source>%1 is a Label Studio YOLO export (classes.txt, images/, labels/) without a data.yaml.</source>
        <translation>%1 是没有 data.yaml 的 Label Studio YOLO 导出（classes.txt、images/、labels/）。</translation>
    </message>
    <message>
        <source>%1 holds images with YOLO .txt labels beside them but no data.yaml.</source>
        <translation>%1 中有旁边带 YOLO .txt 标注的图像，但没有 data.yaml。</translation>
    </message>
    <message>
        <source>%1 holds images/ and labels/ but no data.yaml.</source>
        <translation>%1 中有 images/ 和 labels/，但没有 data.yaml。</translation>
    </message>
    <message>
        <source>Images found: %1. Headroom can write a data.yaml here, splitting the images into training and validation as Ultralytics&apos; autosplit does (autosplit_train.txt, autosplit_val.txt).</source>
        <translation>找到图像：%1。Headroom 可以在此写入 data.yaml，并按 Ultralytics 的 autosplit 方式把图像分为训练集和验证集（autosplit_train.txt、autosplit_val.txt）。</translation>
    </message>
    <message>
        <source>One name per class id, in id order, separated by commas.</source>
        <translation>每个类别 id 一个名称，按 id 顺序，用逗号分隔。</translation>
    </message>
    <message>
        <source>Class names (id 0, 1, …):</source>
        <translation>类别名称（id 0、1、…）：</translation>
    </message>
    <message>
        <source>Validation share:</source>
        <translation>验证集比例：</translation>
    </message>
    <message>
        <source>Write data.yaml</source>
        <translation>写入 data.yaml</translation>
    </message>
    <message>
        <source>No data.yaml written.</source>
        <translation>未写入 data.yaml。</translation>
    </message>
    <message>
        <source>data.yaml written by Headroom</source>
        <translation>由 Headroom 写入的 data.yaml</translation>
    </message>
    <message>
        <source>Writing data.yaml in %1…</source>
        <translation>正在 %1 中写入 data.yaml…</translation>
    </message>
    <message>
        <source>Converting %1 to %2…</source>
        <translation>正在把 %1 转换到 %2…</translation>
    </message>
    <message>
        <source>training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>test</source>
        <translation>测试</translation>
    </message>
    <message>
        <source>%1: %2 images, %3 objects, %4 backgrounds</source>
        <translation>%1：%2 张图像，%3 个目标，%4 张背景图</translation>
    </message>
    <message>
        <source>%1: %2 images</source>
        <translation>%1：%2 张图像</translation>
    </message>
    <message>
        <source>split %1/%2 by Ultralytics&apos; autosplit</source>
        <translation>按 Ultralytics 的 autosplit 以 %1/%2 划分</translation>
    </message>
    <message>
        <source>entries left out or changed: %1, listed below</source>
        <translation>略过或改动的条目：%1，见下方列表</translation>
    </message>
    <message>
        <source>Data set: %1 (%2)</source>
        <translation>数据集：%1（%2）</translation>
    </message>
    <message>
        <source>convert</source>
        <translation>转换</translation>
    </message>
    <message>
        <source>yaml</source>
        <translation>YAML</translation>
    </message>
    <message>
        <source>Problems not listed here: %1</source>
        <translation>未在此列出的问题：%1 个</translation>
    </message>
    <message>
        <source>headroom-cli data-check --data %1 lists them all</source>
        <translation>运行 headroom-cli data-check --data %1 可列出全部问题</translation>
    </message>
</context>
<context>
    <name>hr::ui::DatasetService</name>
    <message>
        <source>Could not create the built-in sample: %1</source>
        <translation>无法创建内置示例：%1</translation>
    </message>
</context>
<context>
    <name>hr::ui::EstimatorService</name>
    <message>
        <source>the device&apos;s memory size is unknown: set a memory budget</source>
        <translation>设备的内存大小未知：请设置内存预算</translation>
    </message>
    <message>
        <source>auto-fit gave no answer</source>
        <translation>自动适配没有给出结果</translation>
    </message>
    <message>
        <source>the estimator gave no answer</source>
        <translation>估算器没有给出结果</translation>
    </message>
</context>
<context>
    <name>hr::ui::ImageView</name>
    <message>
        <source>Choose an image to see its boxes.</source>
        <translation>选择一张图像以查看其标注框。</translation>
    </message>
    <message>
        <source>Cannot read %1: %2</source>
        <translation>无法读取 %1：%2</translation>
    </message>
</context>
<context>
    <name>hr::ui::InterruptedRunBanner</name>
    <message>
        <source>Resume</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Show the run&apos;s curves on the Runs page</source>
        <translation>在“运行”页显示该运行的曲线</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>忽略</translation>
    </message>
    <message>
        <source>after epoch %1 of %2</source>
        <translation>于第 %1 轮（共 %2 轮）之后</translation>
    </message>
    <message>
        <source>after epoch %1</source>
        <translation>于第 %1 轮之后</translation>
    </message>
    <message>
        <source>The last run, %1, did not finish: it ended %2. Resume continues it from its last checkpoint.</source>
        <translation>上次运行 %1 没有完成：它结束%2。“继续训练”会从其最后的检查点接着训练。</translation>
    </message>
</context>
<context>
    <name>hr::ui::MainWindow</name>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Headroom</source>
        <translation>Headroom</translation>
    </message>
    <message>
        <source>Data</source>
        <translation>数据</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Train</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Data set %1 ready.</source>
        <translation>数据集 %1 已就绪。</translation>
    </message>
    <message>
        <source>Run finished: %1</source>
        <translation type="vanished">运行完成：%1</translation>
    </message>
    <message>
        <source>&amp;Open data set…</source>
        <translation>打开数据集(&amp;O)…</translation>
    </message>
    <message>
        <source>Open a data.yaml or a folder holding one</source>
        <translation>打开 data.yaml 或包含它的文件夹</translation>
    </message>
    <message>
        <source>Open &amp;settings YAML…</source>
        <translation>打开设置 YAML(&amp;S)…</translation>
    </message>
    <message>
        <source>&amp;Save settings</source>
        <translation>保存设置(&amp;S)</translation>
    </message>
    <message>
        <source>Save settings &amp;as…</source>
        <translation>设置另存为(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Start training</source>
        <translation>开始训练(&amp;S)</translation>
    </message>
    <message>
        <source>Start training with the current settings (Ctrl+R, F5)</source>
        <translation>使用当前设置开始训练（Ctrl+R，F5）</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>暂停(&amp;P)</translation>
    </message>
    <message>
        <source>Pause or resume between steps (F6)</source>
        <translation>在步骤之间暂停或继续（F6）</translation>
    </message>
    <message>
        <source>S&amp;top</source>
        <translation>停止(&amp;T)</translation>
    </message>
    <message>
        <source>Stop after the current step; the run keeps its last checkpoint (Ctrl+., Shift+F5)</source>
        <translation>在当前步骤后停止；运行保留最后的检查点（Ctrl+.，Shift+F5）</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Recent runs</source>
        <translation>最近的运行(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Train</source>
        <translation>训练(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Data</source>
        <translation>数据(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>T&amp;rain</source>
        <translation>训练(&amp;R)</translation>
    </message>
    <message>
        <source>R&amp;uns</source>
        <translation>运行记录(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;About Headroom</source>
        <translation>关于 Headroom(&amp;A)</translation>
    </message>
    <message>
        <source>About Headroom</source>
        <translation>关于 Headroom</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;A training studio for YOLO detectors that predicts memory before a run, watches it live, and turns an out-of-memory error into a choice of fixes that continue the same run.&lt;/p&gt;&lt;p&gt;GPL-3.0-or-later.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Headroom %1&lt;/h3&gt;&lt;p&gt;YOLO 检测器训练工作室：在运行前预测显存，实时监视显存，并把显存不足错误变成一组可选的修复方案，让同一次运行继续下去。&lt;/p&gt;&lt;p&gt;GPL-3.0-or-later。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <source>Cannot start</source>
        <translation>无法开始</translation>
    </message>
    <message>
        <source>The settings have errors:
%1</source>
        <translation>设置有错误：
%1</translation>
    </message>
    <message>
        <source>Open settings</source>
        <translation>打开设置</translation>
    </message>
    <message>
        <source>Training settings (*.yaml *.yml)</source>
        <translation>训练设置 (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Cannot open settings</source>
        <translation>无法打开设置</translation>
    </message>
    <message>
        <source>Settings opened with warnings</source>
        <translation>设置已打开，但有警告</translation>
    </message>
    <message>
        <source>Cannot save settings</source>
        <translation>无法保存设置</translation>
    </message>
    <message>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
    <message>
        <source>Save settings</source>
        <translation>保存设置</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>The new language is used from the next start. Restart Headroom now?</source>
        <translation>新语言将在下次启动时生效。现在重启 Headroom 吗？</translation>
    </message>
    <message>
        <source>Training in progress</source>
        <translation>正在训练</translation>
    </message>
    <message>
        <source>A run is in progress. Stop it (keeping its last checkpoint) and quit?</source>
        <translation>有一个运行正在进行。停止它（保留最后的检查点）并退出吗？</translation>
    </message>
    <message>
        <source>&amp;Compare</source>
        <translation>比较(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Getting started</source>
        <translation>入门(&amp;G)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>Getting started</source>
        <translation>入门</translation>
    </message>
    <message>
        <source>&lt;h3&gt;From data to a trained detector in five steps&lt;/h3&gt;&lt;ol&gt;&lt;li&gt;&lt;b&gt;Data&lt;/b&gt;: open a data.yaml or a folder (Ctrl+O), or use the built-in sample. The page lists problems in the labels.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Settings&lt;/b&gt;: pick the model, image size, batch and epochs. Set a memory budget to make this device behave like a smaller GPU.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Predicted memory&lt;/b&gt;: the panel beside the settings predicts the training and validation peaks; Auto-fit picks settings that fit the budget.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Train&lt;/b&gt;: Start (Ctrl+R) and watch memory, losses and mAP live. If a step runs out of memory, the advisor offers fixes that continue the same run.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Runs and Compare&lt;/b&gt;: every run keeps its curves and weights; pick runs to lay them over each other, or run a strategy matrix.&lt;/li&gt;&lt;/ol&gt;</source>
        <translation>&lt;h3&gt;五步从数据到训练好的检测器&lt;/h3&gt;&lt;ol&gt;&lt;li&gt;&lt;b&gt;数据&lt;/b&gt;：打开 data.yaml 或一个文件夹（Ctrl+O），或使用内置示例。该页列出标注中的问题。&lt;/li&gt;&lt;li&gt;&lt;b&gt;设置&lt;/b&gt;：选择模型、图像尺寸、批量和轮数。设置内存预算，让本设备表现得像一块更小的 GPU。&lt;/li&gt;&lt;li&gt;&lt;b&gt;预测内存&lt;/b&gt;：设置旁的面板预测训练和验证峰值；自动适配会选出符合预算的设置。&lt;/li&gt;&lt;li&gt;&lt;b&gt;训练&lt;/b&gt;：开始（Ctrl+R），实时查看内存、损失和 mAP。某一步内存不足时，顾问会给出修复方案，让同一次运行继续。&lt;/li&gt;&lt;li&gt;&lt;b&gt;运行记录与比较&lt;/b&gt;：每次运行都保留其曲线和权重；选择多个运行叠加比较，或运行策略矩阵。&lt;/li&gt;&lt;/ol&gt;</translation>
    </message>
    <message>
        <source>Show the %1 page</source>
        <translation>显示“%1”页</translation>
    </message>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>These settings are not valid: %1. Each says why under its field on the Settings page.</source>
        <translation>这些设置无效：%1。设置页上每个字段下方说明了原因。</translation>
    </message>
    <message>
        <source>No data set chosen</source>
        <translation>未选择数据集</translation>
    </message>
    <message>
        <source>No data set is chosen. Train on the built-in sample?</source>
        <translation>尚未选择数据集。要用内置示例训练吗？</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>It would train %1 for %2 epochs at %3 px, batch %4, memory budget %5.</source>
        <translation>将以 %3 px、批量 %4、内存预算 %5 训练 %1 共 %2 轮。</translation>
    </message>
    <message>
        <source>auto-fit</source>
        <translation>自动适配</translation>
    </message>
    <message>
        <source>Train on the sample</source>
        <translation>用示例训练</translation>
    </message>
    <message>
        <source>Choose a data set…</source>
        <translation>选择数据集…</translation>
    </message>
    <message>
        <source>The strategy matrix on the Compare page is training; Start is back when it ends or is stopped.</source>
        <translation>比较页上的策略矩阵正在训练；它结束或被停止后才能开始。</translation>
    </message>
    <message>
        <source>Fix these settings first: %1</source>
        <translation>请先修正这些设置：%1</translation>
    </message>
    <message>
        <source>Run %1: %2</source>
        <translation>运行 %1：%2</translation>
    </message>
    <message>
        <source>Could not write the fix&apos;s %1 = %2 back to Settings: %3</source>
        <translation>无法把修复的 %1 = %2 写回设置：%3</translation>
    </message>
    <message>
        <source>Changed by the OOM advisor to %1 so that the next run fits the memory budget.</source>
        <translation>已由内存不足顾问改为 %1，使下一次运行符合内存预算。</translation>
    </message>
    <message>
        <source>The advisor&apos;s fix is in Settings now (%1); the next Start uses it.</source>
        <translation>顾问的修复已写入设置（%1）；下次开始时使用。</translation>
    </message>
    <message>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>&amp;Export to ONNX…</source>
        <translation>导出为 ONNX(&amp;E)…</translation>
    </message>
    <message>
        <source>Write a weights file (Headroom or Ultralytics .pt) as an ONNX model, checked with OpenCV</source>
        <translation>把权重文件(Headroom 或 Ultralytics 的 .pt)写成 ONNX 模型,并用 OpenCV 检验</translation>
    </message>
    <message>
        <source>An export is already running</source>
        <translation>已有一个导出正在进行</translation>
    </message>
    <message>
        <source>Weights to export</source>
        <translation>要导出的权重</translation>
    </message>
    <message>
        <source>Weights (*.pt *.pth);;All files (*)</source>
        <translation>权重 (*.pt *.pth);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save ONNX model</source>
        <translation>保存 ONNX 模型</translation>
    </message>
    <message>
        <source>ONNX models (*.onnx)</source>
        <translation>ONNX 模型 (*.onnx)</translation>
    </message>
    <message>
        <source>Export finished</source>
        <translation>导出完成</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <source>Exporting %1…</source>
        <translation>正在导出 %1…</translation>
    </message>
    <message>
        <source>Continue %1 from its last checkpoint (epoch %2)</source>
        <translation>从最后的检查点继续 %1（第 %2 轮）</translation>
    </message>
    <message>
        <source>No run to resume: every run finished or has no checkpoint.</source>
        <translation>没有可继续的运行：每个运行都已完成或没有检查点。</translation>
    </message>
    <message>
        <source>&amp;Resume last run</source>
        <translation>继续上次运行(&amp;R)</translation>
    </message>
</context>
<context>
    <name>hr::ui::MemoryPanel</name>
    <message>
        <source>Weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>Optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>EMA</source>
        <translation>EMA</translation>
    </message>
    <message>
        <source>Activations</source>
        <translation>激活</translation>
    </message>
    <message>
        <source>Batch data</source>
        <translation>批数据</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Predicted memory</source>
        <translation>预测内存</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <source>Validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>Training peak</source>
        <translation>训练峰值</translation>
    </message>
    <message>
        <source>Validation peak</source>
        <translation>验证峰值</translation>
    </message>
    <message>
        <source>Budget</source>
        <translation>预算</translation>
    </message>
    <message>
        <source>Auto-fit</source>
        <translation>自动适配</translation>
    </message>
    <message>
        <source>Pick the largest batch whose predicted peaks stay under 90% of the budget (or of the device&apos;s memory when no budget is set), keeping the nominal batch through accumulation; then AMP, checkpointing and a smaller image size if even batch 1 does not fit.</source>
        <translation>选择预测峰值不超过预算 90%（未设预算时为设备内存的 90%）的最大批大小，并通过梯度累积保持名义批大小；若连批大小 1 也放不下，再依次启用 AMP、梯度检查点并缩小图像尺寸。</translation>
    </message>
    <message>
        <source>Auto-fit failed: %1</source>
        <translation>自动适配失败：%1</translation>
    </message>
    <message>
        <source>Fix the settings first: %1</source>
        <translation>请先修正设置：%1</translation>
    </message>
    <message>
        <source>Auto-fit: predicting the peaks of each candidate…</source>
        <translation>自动适配：正在预测每个候选设置的峰值…</translation>
    </message>
    <message>
        <source>The prediction appears here when the settings are shown.</source>
        <translation>显示设置页时，预测结果会出现在这里。</translation>
    </message>
    <message>
        <source>Predictions wait while a run trains: the estimator&apos;s probe steps would share the device with it.</source>
        <translation>训练进行时暂停预测：估算器的探测步骤会与训练共用设备。</translation>
    </message>
    <message>
        <source>No prediction until the settings are valid.</source>
        <translation type="vanished">设置有效后才能预测。</translation>
    </message>
    <message>
        <source>Waiting for the settings to settle…</source>
        <translation>等待设置稳定…</translation>
    </message>
    <message>
        <source>Calibrating… (short probe steps of the real training step; a new model or image size takes a few seconds)</source>
        <translation>正在校准…（用真实训练步骤做几次简短探测；换模型或图像尺寸需要几秒钟）</translation>
    </message>
    <message>
        <source>Training peak %1, validation peak %2: %3% of the %4 budget. This run would go out of memory; Auto-fit finds settings that fit.</source>
        <translation>训练峰值 %1，验证峰值 %2：占 %4 预算的 %3%。此次训练会内存不足；“自动适配”可找到放得下的设置。</translation>
    </message>
    <message>
        <source>Training peak %1, validation peak %2: %3% of the %4 budget, above the 10% margin Auto-fit leaves for fragmentation and growth.</source>
        <translation>训练峰值 %1，验证峰值 %2：占 %4 预算的 %3%，超出了自动适配为碎片和增长预留的 10% 余量。</translation>
    </message>
    <message>
        <source>Training peak %1, validation peak %2: %3% of the %4 budget.</source>
        <translation>训练峰值 %1，验证峰值 %2：占 %4 预算的 %3%。</translation>
    </message>
    <message>
        <source>Training peak %1, validation peak %2 on %3, which has %4. No budget is set.</source>
        <translation>训练峰值 %1，验证峰值 %2，设备 %3（共 %4）。未设置预算。</translation>
    </message>
    <message>
        <source>Training peak %1, validation peak %2 on %3. No budget is set.</source>
        <translation>训练峰值 %1，验证峰值 %2，设备 %3。未设置预算。</translation>
    </message>
    <message>
        <source>Batch -1: auto-fit picks batch %1.</source>
        <translation>批大小 -1：自动适配选择批大小 %1。</translation>
    </message>
    <message>
        <source>Batch %1, validation batch %2; each more image adds %3 to a training step. How: %4.</source>
        <translation type="vanished">批大小 %1，验证批大小 %2；每多一张图像，训练步骤增加 %3。方法：%4。</translation>
    </message>
    <message>
        <source>No prediction: %1</source>
        <translation>无法预测：%1</translation>
    </message>
    <message>
        <source>Auto-fit applied:</source>
        <translation>已应用自动适配：</translation>
    </message>
    <message>
        <source>Nothing fits:</source>
        <translation>无法放下：</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation>预算 %1</translation>
    </message>
    <message>
        <source>calibrated with real training steps at batch %1 and %2 on %3 (%4 targets per image)</source>
        <translation>在 %3 上以批量 %1 和 %2 运行真实训练步骤校准（每张图像 %4 个目标）</translation>
    </message>
    <message>
        <source>the step peaks in its forward pass</source>
        <translation>训练步骤的峰值出现在前向传播</translation>
    </message>
    <message>
        <source>the step peaks in its loss</source>
        <translation>训练步骤的峰值出现在损失计算</translation>
    </message>
    <message>
        <source>the step peaks in its backward pass</source>
        <translation>训练步骤的峰值出现在反向传播</translation>
    </message>
    <message>
        <source>the step peaks in its optimizer step</source>
        <translation>训练步骤的峰值出现在优化器更新</translation>
    </message>
    <message>
        <source>includes %1 batches queued by the loader</source>
        <translation type="vanished">包括加载器排队的 %1 个批次</translation>
    </message>
    <message>
        <source>per rank of %1: training batch %2, the gradients&apos; all-reduce copies counted</source>
        <translation>按 %1 个进程中的每个计：训练批量 %2，已计入梯度全归约的副本</translation>
    </message>
    <message>
        <source>, %1% of the optimizer state (ZeRO-1, the most loaded rank)</source>
        <translation>，优化器状态的 %1%（ZeRO-1，负载最重的进程）</translation>
    </message>
    <message>
        <source>rank 0 validates at batch %1</source>
        <translation>进程 0 以批量 %1 验证</translation>
    </message>
    <message>
        <source>validation from probes at %1 and %2 images</source>
        <translation>验证由 %1 和 %2 张图像的探测得出</translation>
    </message>
    <message>
        <source>validation NMS is sized by an untrained model&apos;s few candidates</source>
        <translation>验证 NMS 按未训练模型的少量候选框估算</translation>
    </message>
    <message>
        <source>per-image memory scaled by the pixel count from a calibration at another image size</source>
        <translation>每张图像的内存由另一图像尺寸的校准按像素数缩放得出</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>.</source>
        <translation>。</translation>
    </message>
    <message>
        <source>Fix these settings first: %1.</source>
        <translation>请先修正这些设置：%1。</translation>
    </message>
    <message>
        <source>No prediction until these settings are fixed: %1.</source>
        <translation>修正这些设置之前无法预测：%1。</translation>
    </message>
    <message>
        <source>No prediction until the settings are valid; the Settings page says which and why.</source>
        <translation>设置有效之前无法预测；设置页说明了哪些设置以及原因。</translation>
    </message>
    <message>
        <source>Batch %1, validation batch %2; each more image adds %3 to a training step. How: %4</source>
        <translation>批大小 %1，验证批大小 %2；每多一张图像，训练步骤增加 %3。方法：%4</translation>
    </message>
    <message>
        <source>The predicted peaks appear here.</source>
        <translation>预测的峰值显示在这里。</translation>
    </message>
    <message>
        <source>counts the batch on the device, not the loader&apos;s queued batches (host memory)</source>
        <translation>计入设备上的批次，不计入加载器排队的批次（主机内存）</translation>
    </message>
    <message>
        <source>Source: %1. %2</source>
        <translation>来源：%1。%2</translation>
    </message>
    <message>
        <source>Probe steps at another image size, their per-image memory scaled by the pixel count.</source>
        <translation>在另一图像尺寸下的探测步骤，其每张图像的内存按像素数缩放。</translation>
    </message>
    <message>
        <source>The allocator&apos;s peak of validation batches of %1 and %2 images on %3, on a line to batch %4.</source>
        <translation>在 %3 上对 %1 张和 %2 张图像的验证批次测得的分配器峰值，按直线外推到批次 %4。</translation>
    </message>
    <message>
        <source>The allocator&apos;s peak of real training steps at batch %1 and %2 on %3, on a line to batch %4.</source>
        <translation>在 %3 上以批次 %1 和 %2 运行真实训练步骤测得的分配器峰值，按直线外推到批次 %4。</translation>
    </message>
    <message>
        <source>The bytes of the model&apos;s weights, counted from its tensors on %1 after the probe steps.</source>
        <translation>模型权重的字节数，在探测步骤之后从 %1 上的张量统计得出。</translation>
    </message>
    <message>
        <source>The bytes of the trainable parameters&apos; gradients, counted from their tensors after the probe steps.</source>
        <translation>可训练参数梯度的字节数，在探测步骤之后从其张量统计得出。</translation>
    </message>
    <message>
        <source>The bytes of the optimizer&apos;s state, counted from its tensors after the probe steps.</source>
        <translation>优化器状态的字节数，在探测步骤之后从其张量统计得出。</translation>
    </message>
    <message>
        <source>This rank keeps %1% of it (ZeRO-1: the most loaded rank by parameter size).</source>
        <translation>本进程保留其中的 %1%（ZeRO-1：按参数大小计负载最重的进程）。</translation>
    </message>
    <message>
        <source>The bytes of the EMA copy of the weights, counted from its tensors after the probe steps.</source>
        <translation>权重 EMA 副本的字节数，在探测步骤之后从其张量统计得出。</translation>
    </message>
    <message>
        <source>Activations are that peak less the parts above and the batch.</source>
        <translation>激活为该峰值减去上述各部分和批次数据。</translation>
    </message>
    <message>
        <source>Source: byte count. %1 images × 3 colour channels × the image size squared × 4 bytes (float32): the batch once the step has moved it to the device.</source>
        <translation>来源：字节计数。%1 张图像 × 3 个颜色通道 × 图像尺寸的平方 × 4 字节（float32）：训练步骤将批次移到设备上之后的大小。</translation>
    </message>
    <message>
        <source>Other is what that peak holds beyond the parts above (the activations take it all).</source>
        <translation>“其他”是该峰值中超出上述各部分的内容（此处全部计入激活）。</translation>
    </message>
    <message>
        <source>Source: your setting (memory_budget). The dashed line at 90% of it is the margin Auto-fit leaves for fragmentation and growth: %1.</source>
        <translation>来源：您的设置（memory_budget）。其 90% 处的虚线是自动适配为碎片和增长预留的余量：%1。</translation>
    </message>
    <message>
        <source>Source: your setting (memory_budget): none is set.</source>
        <translation>来源：您的设置（memory_budget）：未设置。</translation>
    </message>
    <message>
        <source>Training peak: %1</source>
        <translation>训练峰值：%1</translation>
    </message>
    <message>
        <source>Validation peak: %1</source>
        <translation>验证峰值：%1</translation>
    </message>
    <message>
        <source>Budget: %1</source>
        <translation>预算：%1</translation>
    </message>
    <message>
        <source>Each more image: %1</source>
        <translation>每多一张图像：%1</translation>
    </message>
    <message>
        <source>Auto-fit compares the peaks the estimator&apos;s probe steps measured for each candidate with 90% of the budget; that margin is an assumption.</source>
        <translation>自动适配将估算器的探测步骤为每个候选测得的峰值与预算的 90% 比较；该余量是一个假设值。</translation>
    </message>
</context>
<context>
    <name>hr::ui::OomAdvisorDialog</name>
    <message>
        <source>moving the batch to the device</source>
        <translation>将批次移到设备</translation>
    </message>
    <message>
        <source>forward pass</source>
        <translation>前向传播</translation>
    </message>
    <message>
        <source>loss and target assignment</source>
        <translation>损失计算与目标分配</translation>
    </message>
    <message>
        <source>backward pass</source>
        <translation>反向传播</translation>
    </message>
    <message>
        <source>optimizer step</source>
        <translation>优化器步骤</translation>
    </message>
    <message>
        <source>EMA update</source>
        <translation>EMA 更新</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>no accuracy cost expected</source>
        <translation>预计不影响精度</translation>
    </message>
    <message>
        <source>small accuracy cost</source>
        <translation>精度略有损失</translation>
    </message>
    <message>
        <source>moderate accuracy cost</source>
        <translation>精度中等损失</translation>
    </message>
    <message>
        <source>large accuracy cost</source>
        <translation>精度损失较大</translation>
    </message>
    <message>
        <source>Host memory (RAM) ran out during the %1 of epoch %2, batch %3; the device was not the limit. The fixes below lower host memory use: they do not free device memory.</source>
        <translation>第 %2 轮第 %3 批的%1过程中主机内存（RAM）耗尽；设备显存并不是瓶颈。下列修复降低主机内存占用，并不释放设备显存。</translation>
    </message>
    <message>
        <source>The %1 of epoch %2, batch %3 (batch %4 at %5 px) ran out of device memory: it asked for %6 more with %7 already allocated, against a budget of %8.</source>
        <translation>第 %2 轮第 %3 批的%1（批大小 %4，%5 像素）设备显存不足：已分配 %7，又请求了 %6，而预算为 %8。</translation>
    </message>
    <message>
        <source>an unknown amount</source>
        <translation>未知大小</translation>
    </message>
    <message>
        <source>the device&apos;s capacity</source>
        <translation>设备容量</translation>
    </message>
    <message>
        <source>With the request, weights, gradients, optimizer state and EMA hold %1; activations %2; the batch itself %3.</source>
        <translation>连同这次请求：权重、梯度、优化器状态和 EMA 占用 %1；激活值 %2；批数据本身 %3。</translation>
    </message>
    <message>
        <source>Out of memory: choose how to continue</source>
        <translation>显存不足：选择如何继续</translation>
    </message>
    <message>
        <source>Memory at the failure (MiB)</source>
        <translation>失败时的显存（MiB）</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>梯度</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>优化器状态</translation>
    </message>
    <message>
        <source>EMA</source>
        <translation>EMA</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>激活值</translation>
    </message>
    <message>
        <source>batch data</source>
        <translation>批数据</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>Memory up to the failure</source>
        <translation>失败前的显存曲线</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation>预算 %1</translation>
    </message>
    <message>
        <source>No change is predicted to fit within the budget. Stop the run and raise the budget, or choose a smaller model.</source>
        <translation>预计没有任何修改能满足预算。请停止运行并提高预算，或选择更小的模型。</translation>
    </message>
    <message>
        <source>Always apply the best fix for this run</source>
        <translation>本次运行始终应用最佳修复</translation>
    </message>
    <message>
        <source>Stop the run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>Best: </source>
        <translation>最佳：</translation>
    </message>
    <message>
        <source>Changes: %1</source>
        <translation>修改：%1</translation>
    </message>
    <message>
        <source>time per epoch ×%1</source>
        <translation>每轮耗时 ×%1</translation>
    </message>
    <message>
        <source>time per epoch ×%1 (faster)</source>
        <translation>每轮耗时 ×%1（更快）</translation>
    </message>
    <message>
        <source>This change restarts training from new weights.</source>
        <translation>此修改会用新的权重重新开始训练。</translation>
    </message>
    <message>
        <source>Apply and continue</source>
        <translation>应用并继续</translation>
    </message>
    <message>
        <source>Host memory fix: device memory unchanged</source>
        <translation>主机内存修复：设备显存不变</translation>
    </message>
    <message>
        <source>Predicted peak %1 (%2% of the budget)</source>
        <translation>预测峰值 %1（预算的 %2%）</translation>
    </message>
    <message>
        <source>Predicted peak %1</source>
        <translation>预测峰值 %1</translation>
    </message>
    <message>
        <source>No memory prediction for this change</source>
        <translation>此修改没有显存预测</translation>
    </message>
    <message>
        <source>assembling the batch (data loader)</source>
        <translation>组装批次（数据加载器）</translation>
    </message>
    <message>
        <source>writing the checkpoint</source>
        <translation>写入检查点</translation>
    </message>
    <message>
        <source>a probe step</source>
        <translation>探测步骤</translation>
    </message>
    <message>
        <source>Predicting the memory of each fix: %1 of %2 checked…</source>
        <translation>正在预测每个修复的内存：已检查 %1 / %2…</translation>
    </message>
    <message>
        <source>You can choose one now.</source>
        <translation>现在就可以选择一个。</translation>
    </message>
    <message>
        <source>Fixes predicted to fit: %1, best first.</source>
        <translation>预测能满足预算的修复：%1 个，最佳的在前。</translation>
    </message>
    <message>
        <source>Predicting the memory of each fix…</source>
        <translation>正在预测每个修复的内存…</translation>
    </message>
    <message>
        <source>Accuracy: %1.</source>
        <translation>精度：%1。</translation>
    </message>
    <message>
        <source>Why: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>Host memory (RAM) ran out during the %1 of epoch %2, batch %3. On the CPU the step&apos;s tensors live in host memory too, so the device settings below (batch, AMP, checkpointing) free it as well as the host fixes.</source>
        <translation>第 %2 轮第 %3 批在%1时主机内存（RAM）不足。在 CPU 上，训练步的张量也位于主机内存中，因此下面的设备设置（批大小、AMP、检查点）与主机修复一样可以释放内存。</translation>
    </message>
</context>
<context>
    <name>hr::ui::PlotWidget</name>
    <message>
        <source>Export as PNG or PDF…</source>
        <translation>导出为 PNG 或 PDF…</translation>
    </message>
    <message>
        <source>Reset view (follow the data)</source>
        <translation>重置视图（跟随数据）</translation>
    </message>
    <message>
        <source>Export plot</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG 图像 (*.png);;PDF 文档 (*.pdf)</translation>
    </message>
    <message>
        <source>No data yet: the curves appear as the run reports them.</source>
        <translation>尚无数据：运行报告数据后曲线会出现在这里。</translation>
    </message>
</context>
<context>
    <name>hr::ui::ResultsView</name>
    <message>
        <source>Open a run to see what its last validation found.</source>
        <translation>打开一个运行，查看其最近一次验证的结果。</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Images</source>
        <translation>图像</translation>
    </message>
    <message>
        <source>Instances</source>
        <translation>实例</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>Recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <source>Click a column&apos;s title to sort by it.</source>
        <translation>点击列标题即可按该列排序。</translation>
    </message>
    <message>
        <source>Per class</source>
        <translation>按类别</translation>
    </message>
    <message>
        <source>Normalised (each true class&apos;s column adds up to 1)</source>
        <translation>归一化（每个真实类别的列之和为 1）</translation>
    </message>
    <message>
        <source>Click a cell to see what it holds.</source>
        <translation>点击单元格查看其内容。</translation>
    </message>
    <message>
        <source>Confusion matrix</source>
        <translation>混淆矩阵</translation>
    </message>
    <message>
        <source>Precision against recall</source>
        <translation>精确率-召回率</translation>
    </message>
    <message>
        <source>F1 against confidence</source>
        <translation>F1-置信度</translation>
    </message>
    <message>
        <source>Precision against confidence</source>
        <translation>精确率-置信度</translation>
    </message>
    <message>
        <source>Recall against confidence</source>
        <translation>召回率-置信度</translation>
    </message>
    <message>
        <source>Curve:</source>
        <translation>曲线：</translation>
    </message>
    <message>
        <source>Class:</source>
        <translation>类别：</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>This run has no validation curves yet.</source>
        <translation>此运行尚无验证曲线。</translation>
    </message>
    <message>
        <source>all classes</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <source>class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Reading the validation results of %1...</source>
        <translation>正在读取 %1 的验证结果……</translation>
    </message>
    <message>
        <source>%1: %2 images, %3 objects. All classes: precision %4, recall %5, mAP50 %6, mAP50-95 %7. Best F1 at confidence %8.</source>
        <translation>%1：%2 张图像，%3 个目标。所有类别：精确率 %4，召回率 %5，mAP50 %6，mAP50-95 %7。F1 最佳时的置信度为 %8。</translation>
    </message>
    <message>
        <source>All classes</source>
        <translation>所有类别</translation>
    </message>
    <message>
        <source>precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>F1</source>
        <translation>F1</translation>
    </message>
    <message>
        <source>recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>best F1 at %1</source>
        <translation>最佳 F1 于 %1</translation>
    </message>
    <message>
        <source>%1 has no validation results yet (%2): they are written after each validation.</source>
        <translation>%1 尚无验证结果（%2）：每次验证后都会写入。</translation>
    </message>
    <message>
        <source>%1 of %2 is damaged and cannot be read; the next validation writes it again.</source>
        <translation>%2 的 %1 已损坏，无法读取；下次验证会重新写入。</translation>
    </message>
    <message>
        <source>The validation images behind the clicked cell, the image with the most objects in it first.</source>
        <translation>所点击单元格背后的验证图像，目标最多的图像排在最前。</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n object(s))</source>
        <translation>
            <numerusform>%1（%n 个目标）</numerusform>
        </translation>
    </message>
    <message>
        <source>This run&apos;s files do not say which images these are: they are written from this version on, at each validation.</source>
        <translation>此运行的文件没有记录这些是哪些图像：从此版本起，每次验证都会写入。</translation>
    </message>
</context>
<context>
    <name>hr::ui::RunsPage</name>
    <message>
        <source>Compare selected</source>
        <translation>比较所选</translation>
    </message>
    <message>
        <source>Select two or more runs (Ctrl/Shift-click) to lay their curves, memory and mAP over each other on the Compare page</source>
        <translation>选择两个或更多运行（按住 Ctrl/Shift 点击），在“比较”页叠加显示它们的曲线、内存和 mAP</translation>
    </message>
    <message>
        <source>Choose runs folder…</source>
        <translation>选择运行文件夹…</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Modified</source>
        <translation>修改时间</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Best mAP50</source>
        <translation>最佳 mAP50</translation>
    </message>
    <message>
        <source>Best mAP50-95</source>
        <translation>最佳 mAP50-95</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation type="vanished">峰值显存</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Double-click a run to see its curves.</source>
        <translation>双击一个运行以查看其曲线。</translation>
    </message>
    <message>
        <source>Losses</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>box</source>
        <translation>框</translation>
    </message>
    <message>
        <source>cls</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>dfl</source>
        <translation>DFL</translation>
    </message>
    <message>
        <source>val box</source>
        <translation>验证 框</translation>
    </message>
    <message>
        <source>val cls</source>
        <translation>验证 类别</translation>
    </message>
    <message>
        <source>val dfl</source>
        <translation>验证 DFL</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <source>precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>设备显存</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>Runs folder</source>
        <translation>运行文件夹</translation>
    </message>
    <message>
        <source>Runs in %1</source>
        <translation>%1 中的运行</translation>
    </message>
    <message>
        <source>Run %1: %2 epochs</source>
        <translation>运行 %1：%2 轮</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>unfinished</source>
        <translation>未完成</translation>
    </message>
    <message>
        <source>(%1 OOM, %2 fixes)</source>
        <translation type="vanished">（%1 次显存不足，%2 次修复）</translation>
    </message>
    <message>
        <source>Cannot open %1: %2</source>
        <translation>无法打开 %1：%2</translation>
    </message>
    <message>
        <source>Training peak</source>
        <translation type="vanished">训练峰值</translation>
    </message>
    <message>
        <source>Validation peak</source>
        <translation>验证峰值</translation>
    </message>
    <message>
        <source>The highest memory peak of the training steps (exact, from the allocator), as in the Compare page&apos;s table</source>
        <translation type="vanished">训练步骤的最高显存峰值（来自分配器的精确值），与“比较”页表格中的相同</translation>
    </message>
    <message>
        <source>The highest memory during validation (sampled, so a short spike can be missed); a large val_batch can make it the larger one</source>
        <translation type="vanished">验证期间的最高显存（采样得到，可能漏掉短暂的尖峰）；val_batch 较大时它可能是两者中较大的那个</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>stopped by OOM</source>
        <translation>因内存不足停止</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Image size</source>
        <translation>图像尺寸</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Training peak / budget</source>
        <translation>训练峰值 / 预算</translation>
    </message>
    <message>
        <source>Epochs done of the epochs planned</source>
        <translation>已完成轮数 / 计划轮数</translation>
    </message>
    <message>
        <source>The highest memory peak of the training steps (exact, from the allocator), as the Train page and the Compare page show it; the advisor&apos;s probe steps do not count. After the slash: the budget.</source>
        <translation>训练步骤的最高内存峰值（精确值，来自分配器），与训练页和比较页显示的一致；顾问的探测步骤不计入。斜杠后为预算。</translation>
    </message>
    <message>
        <source>The highest memory during validation; a large val_batch can make it the larger one</source>
        <translation>验证期间的最高内存；较大的 val_batch 可能使它更高</translation>
    </message>
    <message>
        <source>%1 out-of-memory errors, %2 fixes applied</source>
        <translation>%1 次内存不足错误，应用了 %2 个修复</translation>
    </message>
    <message>
        <source>no budget</source>
        <translation>无预算</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>This run has no weights/last.pt to continue from.</source>
        <translation>该运行没有可继续的 weights/last.pt。</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Delete run</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>Delete the run folder %1 with its weights, curves and logs? This cannot be undone.</source>
        <translation>删除运行文件夹 %1 及其权重、曲线和日志吗？此操作无法撤销。</translation>
    </message>
    <message>
        <source>Could not delete all of %1; check its permissions.</source>
        <translation>无法完全删除 %1；请检查其权限。</translation>
    </message>
    <message>
        <source>Double-click a run in the list above to see its curves here.</source>
        <translation>双击上方列表中的一次运行，即可在此查看其曲线。</translation>
    </message>
    <message>
        <source>This run finished all its epochs: there is nothing to resume.</source>
        <translation>此运行已完成全部轮次：没有可继续的内容。</translation>
    </message>
    <message>
        <source>This run has not finished an epoch.</source>
        <translation>此运行尚未完成任何一个轮次。</translation>
    </message>
    <message>
        <source>This run recorded no memory samples.</source>
        <translation>此运行没有记录内存采样。</translation>
    </message>
    <message>
        <source>running</source>
        <translation>训练中</translation>
    </message>
    <message>
        <source>Training curves</source>
        <translation>训练曲线</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
</context>
<context>
    <name>hr::ui::SettingsForm</name>
    <message>
        <source>Memory:</source>
        <translation>显存：</translation>
    </message>
    <message>
        <source>Speed:</source>
        <translation>速度：</translation>
    </message>
    <message>
        <source>Accuracy:</source>
        <translation>精度：</translation>
    </message>
    <message>
        <source>No effect.</source>
        <translation>无影响。</translation>
    </message>
    <message>
        <source>Higher values need more.</source>
        <translation>数值越大，需要越多。</translation>
    </message>
    <message>
        <source>Model and data</source>
        <translation>模型与数据</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>The detector architecture: an Ultralytics-format model YAML.</source>
        <translation>检测器结构：Ultralytics 格式的模型 YAML。</translation>
    </message>
    <message>
        <source>Larger models hold more weights, gradients, optimizer state and activations.</source>
        <translation>更大的模型有更多的权重、梯度、优化器状态和激活值。</translation>
    </message>
    <message>
        <source>Larger models are slower per image.</source>
        <translation>更大的模型每张图像更慢。</translation>
    </message>
    <message>
        <source>Larger models usually reach a higher mAP.</source>
        <translation>更大的模型通常能达到更高的 mAP。</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>规模</translation>
    </message>
    <message>
        <source>From the file name</source>
        <translation>由文件名决定</translation>
    </message>
    <message>
        <source>n (nano)</source>
        <translation>n（纳米）</translation>
    </message>
    <message>
        <source>s (small)</source>
        <translation>s（小）</translation>
    </message>
    <message>
        <source>m (medium)</source>
        <translation>m（中）</translation>
    </message>
    <message>
        <source>l (large)</source>
        <translation>l（大）</translation>
    </message>
    <message>
        <source>x (extra large)</source>
        <translation>x（特大）</translation>
    </message>
    <message>
        <source>t (tiny, YOLOv9)</source>
        <translation>t（微型，YOLOv9）</translation>
    </message>
    <message>
        <source>c (compact, YOLOv9)</source>
        <translation>c（紧凑，YOLOv9）</translation>
    </message>
    <message>
        <source>e (extended, YOLOv9)</source>
        <translation>e（扩展，YOLOv9）</translation>
    </message>
    <message>
        <source>Width and depth multipliers of the model family.</source>
        <translation>模型系列的宽度和深度倍数。</translation>
    </message>
    <message>
        <source>Each step up roughly doubles to triples the memory.</source>
        <translation>每升一级，显存大约增加到两到三倍。</translation>
    </message>
    <message>
        <source>Each step up is roughly two to three times slower.</source>
        <translation>每升一级，大约慢两到三倍。</translation>
    </message>
    <message>
        <source>Bigger scales detect small and rare objects better.</source>
        <translation>更大的规模更善于检测小目标和稀有目标。</translation>
    </message>
    <message>
        <source>Start from weights</source>
        <translation>初始权重</translation>
    </message>
    <message>
        <source>A .pt file written by Headroom to start from instead of random weights.</source>
        <translation type="vanished">由 Headroom 写出的 .pt 文件，用来代替随机权重作为起点。</translation>
    </message>
    <message>
        <source>Pretrained weights reach a good mAP in far fewer epochs.</source>
        <translation>预训练权重能以少得多的轮数达到良好的 mAP。</translation>
    </message>
    <message>
        <source>none: train from scratch</source>
        <translation>无：从头训练</translation>
    </message>
    <message>
        <source>Data set</source>
        <translation>数据集</translation>
    </message>
    <message>
        <source>The data.yaml of the data set. Empty uses the built-in sample.</source>
        <translation>数据集的 data.yaml。留空则使用内置示例。</translation>
    </message>
    <message>
        <source>More and better labelled images give a better model.</source>
        <translation>更多、标注更好的图像能得到更好的模型。</translation>
    </message>
    <message>
        <source>built-in sample</source>
        <translation>内置示例</translation>
    </message>
    <message>
        <source>Single class</source>
        <translation>单类别</translation>
    </message>
    <message>
        <source>Treat every object as one class.</source>
        <translation>把所有目标当作同一类别。</translation>
    </message>
    <message>
        <source>Class names are lost; box quality may improve on tiny data sets.</source>
        <translation>会丢失类别名称；在很小的数据集上框的质量可能提高。</translation>
    </message>
    <message>
        <source>Fraction of training set</source>
        <translation>训练集比例</translation>
    </message>
    <message>
        <source>Train on this share of the training images.</source>
        <translation>只使用这一比例的训练图像。</translation>
    </message>
    <message>
        <source>Epochs get shorter in proportion.</source>
        <translation>每轮时间按比例缩短。</translation>
    </message>
    <message>
        <source>Less data, lower mAP.</source>
        <translation>数据越少，mAP 越低。</translation>
    </message>
    <message>
        <source>none, e.g. 0, 1, 2</source>
        <translation type="vanished">无，例如 0, 1, 2</translation>
    </message>
    <message>
        <source>Frozen layers</source>
        <translation>冻结的层</translation>
    </message>
    <message>
        <source>Layer indices whose weights do not train (comma separated).</source>
        <translation type="vanished">不训练其权重的层序号（逗号分隔）。</translation>
    </message>
    <message>
        <source>Frozen layers need no gradients or optimizer state.</source>
        <translation>冻结的层不需要梯度和优化器状态。</translation>
    </message>
    <message>
        <source>Faster: no weight gradients for frozen layers.</source>
        <translation>更快：冻结的层不计算权重梯度。</translation>
    </message>
    <message>
        <source>Usually lower unless starting from good pretrained weights.</source>
        <translation>通常更低，除非从良好的预训练权重开始。</translation>
    </message>
    <message>
        <source>Device and memory</source>
        <translation>设备与显存</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>auto (GPU when present)</source>
        <translation>自动（有 GPU 时使用 GPU）</translation>
    </message>
    <message>
        <source>Where training runs.</source>
        <translation>训练运行的位置。</translation>
    </message>
    <message>
        <source>The budget applies to this device.</source>
        <translation>预算作用于此设备。</translation>
    </message>
    <message>
        <source>A GPU is much faster than the CPU.</source>
        <translation>GPU 比 CPU 快得多。</translation>
    </message>
    <message>
        <source>none, e.g. 3 GiB</source>
        <translation>无，例如 3 GiB</translation>
    </message>
    <message>
        <source>Memory budget</source>
        <translation>显存预算</translation>
    </message>
    <message>
        <source>Make the device behave as if it had only this much memory (KiB, MiB, GiB or bytes). Past it a step runs out of memory, as on a smaller GPU.</source>
        <translation>让设备表现得只有这么多显存（KiB、MiB、GiB 或字节）。超过预算的步骤会像在更小的 GPU 上一样显存不足。</translation>
    </message>
    <message>
        <source>The limit itself.</source>
        <translation>即上限本身。</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>Images per step. Auto-fit picks the largest batch the budget holds.</source>
        <translation>每步的图像数。自动适配会选择预算内最大的批大小。</translation>
    </message>
    <message>
        <source>Activations grow in proportion to the batch.</source>
        <translation>激活值随批大小成比例增长。</translation>
    </message>
    <message>
        <source>Larger batches use the device better, up to a point.</source>
        <translation>更大的批能更充分地利用设备（有上限）。</translation>
    </message>
    <message>
        <source>Small batches make BatchNorm statistics noisier; accumulation keeps the effective batch.</source>
        <translation>小批会让 BatchNorm 统计量更嘈杂；梯度累积可保持有效批大小。</translation>
    </message>
    <message>
        <source>auto-fit</source>
        <translation>自动适配</translation>
    </message>
    <message>
        <source>Image size</source>
        <translation>图像尺寸</translation>
    </message>
    <message>
        <source>Training and validation image size in pixels (a multiple of 32).</source>
        <translation>训练和验证的图像尺寸，单位像素（32 的倍数）。</translation>
    </message>
    <message>
        <source>Activations grow with the square of the size.</source>
        <translation>激活值随尺寸的平方增长。</translation>
    </message>
    <message>
        <source>Time grows with the square of the size.</source>
        <translation>耗时随尺寸的平方增长。</translation>
    </message>
    <message>
        <source>Smaller images lose small objects.</source>
        <translation>图像越小越容易丢失小目标。</translation>
    </message>
    <message>
        <source>Mixed precision (AMP)</source>
        <translation>混合精度（AMP）</translation>
    </message>
    <message>
        <source>Compute in 16-bit floats where it is safe (fp16 on GPU, bf16 on CPU).</source>
        <translation>在安全之处使用 16 位浮点计算（GPU 上 fp16，CPU 上 bf16）。</translation>
    </message>
    <message>
        <source>Activations take about half the memory.</source>
        <translation>激活值大约只占一半显存。</translation>
    </message>
    <message>
        <source>Faster on GPUs with tensor cores.</source>
        <translation>在有张量核心的 GPU 上更快。</translation>
    </message>
    <message>
        <source>Usually the same mAP within noise.</source>
        <translation>通常 mAP 相同（在噪声范围内）。</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>backbone</source>
        <translation>骨干网络</translation>
    </message>
    <message>
        <source>all blocks</source>
        <translation>所有模块</translation>
    </message>
    <message>
        <source>Gradient checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Recompute block activations in the backward pass instead of keeping them.</source>
        <translation>在反向传播时重新计算模块的激活值，而不是一直保存它们。</translation>
    </message>
    <message>
        <source>Much less activation memory.</source>
        <translation>激活值显存大幅减少。</translation>
    </message>
    <message>
        <source>About a third slower per step.</source>
        <translation>每步大约慢三分之一。</translation>
    </message>
    <message>
        <source>Same result: the computation is identical.</source>
        <translation>结果相同：计算完全一致。</translation>
    </message>
    <message>
        <source>Optimizer state on host</source>
        <translation>优化器状态放在主机</translation>
    </message>
    <message>
        <source>Keep the optimizer&apos;s state tensors in host memory.</source>
        <translation>把优化器的状态张量保存在主机内存中。</translation>
    </message>
    <message>
        <source>Frees the optimizer state from the device.</source>
        <translation>从设备上释放优化器状态。</translation>
    </message>
    <message>
        <source>Slower optimizer steps (copies to and from the host).</source>
        <translation>优化器步骤变慢（需要与主机来回复制）。</translation>
    </message>
    <message>
        <source>ask me</source>
        <translation>询问我</translation>
    </message>
    <message>
        <source>apply the best fix</source>
        <translation>应用最佳修复</translation>
    </message>
    <message>
        <source>stop the run</source>
        <translation>停止运行</translation>
    </message>
    <message>
        <source>On out of memory</source>
        <translation>显存不足时</translation>
    </message>
    <message>
        <source>What happens when a step runs out of memory: ask with the advisor, apply the best fix and continue, or stop.</source>
        <translation>某一步显存不足时的处理：用顾问询问、应用最佳修复并继续，或停止。</translation>
    </message>
    <message>
        <source>Loader threads</source>
        <translation>加载线程</translation>
    </message>
    <message>
        <source>Threads that decode and augment images.</source>
        <translation>解码和增强图像的线程。</translation>
    </message>
    <message>
        <source>Host memory only: each thread holds images in flight.</source>
        <translation>只影响主机内存：每个线程都持有处理中的图像。</translation>
    </message>
    <message>
        <source>More threads keep the device fed, up to the number of cores.</source>
        <translation>更多线程能让设备不断有数据可用，上限是核心数。</translation>
    </message>
    <message>
        <source>Compute threads</source>
        <translation>计算线程</translation>
    </message>
    <message>
        <source>Intra-op threads for the CPU kernels.</source>
        <translation>CPU 算子的内部并行线程数。</translation>
    </message>
    <message>
        <source>More threads are faster up to the number of cores.</source>
        <translation>线程越多越快，上限是核心数。</translation>
    </message>
    <message>
        <source>all cores</source>
        <translation>全部核心</translation>
    </message>
    <message>
        <source>Image cache</source>
        <translation>图像缓存</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>RAM</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>disk</source>
        <translation>磁盘</translation>
    </message>
    <message>
        <source>Keep decoded images in RAM or on disk between epochs.</source>
        <translation>在各轮之间把解码后的图像保存在内存或磁盘上。</translation>
    </message>
    <message>
        <source>Host memory (RAM cache), not device memory.</source>
        <translation>占用主机内存（内存缓存），不占设备显存。</translation>
    </message>
    <message>
        <source>Faster epochs when decoding is the bottleneck.</source>
        <translation>当解码是瓶颈时每轮更快。</translation>
    </message>
    <message>
        <source>Memory samples per second</source>
        <translation>每秒显存采样次数</translation>
    </message>
    <message>
        <source>How often the memory timeline is sampled.</source>
        <translation>显存时间线的采样频率。</translation>
    </message>
    <message>
        <source>Very high rates cost a little time.</source>
        <translation>很高的采样率会花一点时间。</translation>
    </message>
    <message>
        <source>Schedule and optimizer</source>
        <translation>调度与优化器</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Passes over the training set.</source>
        <translation>遍历训练集的次数。</translation>
    </message>
    <message>
        <source>Time grows in proportion.</source>
        <translation>耗时按比例增长。</translation>
    </message>
    <message>
        <source>More epochs learn more, until the model overfits.</source>
        <translation>轮数越多学得越多，直到模型过拟合。</translation>
    </message>
    <message>
        <source>Patience</source>
        <translation>耐心</translation>
    </message>
    <message>
        <source>Stop early after this many epochs without improvement (0 = never).</source>
        <translation>连续这么多轮没有改进就提前停止（0 = 从不）。</translation>
    </message>
    <message>
        <source>Saves time on runs that stopped improving.</source>
        <translation>为不再改进的运行节省时间。</translation>
    </message>
    <message>
        <source>Too small stops too early.</source>
        <translation>太小会过早停止。</translation>
    </message>
    <message>
        <source>never stop early</source>
        <translation>从不提前停止</translation>
    </message>
    <message>
        <source>Optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>The update rule. Auto picks AdamW for short runs and SGD for long ones.</source>
        <translation>参数更新规则。自动模式在短训练中选 AdamW，在长训练中选 SGD。</translation>
    </message>
    <message>
        <source>SGD keeps one state tensor per weight, Adam and AdamW two.</source>
        <translation>SGD 每个权重保存一个状态张量，Adam 和 AdamW 保存两个。</translation>
    </message>
    <message>
        <source>AdamW converges faster on short runs; SGD often generalises better on long ones.</source>
        <translation>AdamW 在短训练中收敛更快；SGD 在长训练中往往泛化更好。</translation>
    </message>
    <message>
        <source>Initial learning rate</source>
        <translation>初始学习率</translation>
    </message>
    <message>
        <source>Learning rate at the end of warmup.</source>
        <translation>预热结束时的学习率。</translation>
    </message>
    <message>
        <source>Too high diverges, too low learns slowly.</source>
        <translation>太高会发散，太低学得慢。</translation>
    </message>
    <message>
        <source>Final learning rate factor</source>
        <translation>最终学习率系数</translation>
    </message>
    <message>
        <source>The last epoch&apos;s learning rate as a fraction of the initial one.</source>
        <translation>最后一轮的学习率占初始学习率的比例。</translation>
    </message>
    <message>
        <source>A small final rate settles the weights.</source>
        <translation>较小的最终学习率能让权重稳定下来。</translation>
    </message>
    <message>
        <source>Momentum</source>
        <translation>动量</translation>
    </message>
    <message>
        <source>SGD momentum, or Adam&apos;s beta1.</source>
        <translation>SGD 的动量，或 Adam 的 beta1。</translation>
    </message>
    <message>
        <source>The default suits most data sets.</source>
        <translation>默认值适合大多数数据集。</translation>
    </message>
    <message>
        <source>Weight decay</source>
        <translation>权重衰减</translation>
    </message>
    <message>
        <source>L2 penalty on convolution and linear weights.</source>
        <translation>对卷积和线性层权重的 L2 惩罚。</translation>
    </message>
    <message>
        <source>Reduces overfitting; too much underfits.</source>
        <translation>减少过拟合；过大会欠拟合。</translation>
    </message>
    <message>
        <source>Warmup epochs</source>
        <translation>预热轮数</translation>
    </message>
    <message>
        <source>Epochs over which the learning rate ramps up.</source>
        <translation>学习率逐渐升高所用的轮数。</translation>
    </message>
    <message>
        <source>Stabilises the first epochs.</source>
        <translation>让最初几轮更稳定。</translation>
    </message>
    <message>
        <source>Warmup momentum</source>
        <translation>预热动量</translation>
    </message>
    <message>
        <source>Momentum at the start of warmup.</source>
        <translation>预热开始时的动量。</translation>
    </message>
    <message>
        <source>Warmup bias learning rate</source>
        <translation>预热偏置学习率</translation>
    </message>
    <message>
        <source>Learning rate of the biases at the start of warmup.</source>
        <translation>预热开始时偏置参数的学习率。</translation>
    </message>
    <message>
        <source>Cosine schedule</source>
        <translation>余弦调度</translation>
    </message>
    <message>
        <source>Decay the learning rate along a cosine instead of a line.</source>
        <translation>学习率按余弦曲线而不是直线衰减。</translation>
    </message>
    <message>
        <source>Sometimes slightly better at the end of long runs.</source>
        <translation>在长训练的末尾有时略好。</translation>
    </message>
    <message>
        <source>Nominal batch</source>
        <translation>名义批大小</translation>
    </message>
    <message>
        <source>Gradients are accumulated until this many images, whatever the batch.</source>
        <translation>无论批大小如何，梯度都累积到这么多张图像。</translation>
    </message>
    <message>
        <source>No effect on images per second.</source>
        <translation>不影响每秒图像数。</translation>
    </message>
    <message>
        <source>Keeps training behaviour when the batch shrinks to fit memory.</source>
        <translation>当批大小为适应显存而缩小时，保持训练行为不变。</translation>
    </message>
    <message>
        <source>Loss gains</source>
        <translation>损失权重</translation>
    </message>
    <message>
        <source>Box loss gain</source>
        <translation>框损失权重</translation>
    </message>
    <message>
        <source>Weight of the box (CIoU) loss.</source>
        <translation>框（CIoU）损失的权重。</translation>
    </message>
    <message>
        <source>Higher favours box precision.</source>
        <translation>越高越重视框的精度。</translation>
    </message>
    <message>
        <source>Class loss gain</source>
        <translation>类别损失权重</translation>
    </message>
    <message>
        <source>Weight of the classification loss.</source>
        <translation>分类损失的权重。</translation>
    </message>
    <message>
        <source>Higher favours class accuracy.</source>
        <translation>越高越重视分类准确率。</translation>
    </message>
    <message>
        <source>DFL loss gain</source>
        <translation>DFL 损失权重</translation>
    </message>
    <message>
        <source>Weight of the distribution focal loss of box edges.</source>
        <translation>框边缘分布焦点损失（DFL）的权重。</translation>
    </message>
    <message>
        <source>Augmentation</source>
        <translation>数据增强</translation>
    </message>
    <message>
        <source>Host memory only.</source>
        <translation>只影响主机内存。</translation>
    </message>
    <message>
        <source>A little more loader time.</source>
        <translation>加载时间略有增加。</translation>
    </message>
    <message>
        <source>Hue</source>
        <translation>色调</translation>
    </message>
    <message>
        <source>Random hue shift (fraction).</source>
        <translation>随机色调偏移（比例）。</translation>
    </message>
    <message>
        <source>Robustness to colour changes.</source>
        <translation>对颜色变化更稳健。</translation>
    </message>
    <message>
        <source>Saturation</source>
        <translation>饱和度</translation>
    </message>
    <message>
        <source>Random saturation gain (fraction).</source>
        <translation>随机饱和度增益（比例）。</translation>
    </message>
    <message>
        <source>Brightness</source>
        <translation>亮度</translation>
    </message>
    <message>
        <source>Random brightness gain (fraction).</source>
        <translation>随机亮度增益（比例）。</translation>
    </message>
    <message>
        <source>Robustness to lighting changes.</source>
        <translation>对光照变化更稳健。</translation>
    </message>
    <message>
        <source>Rotation (degrees)</source>
        <translation>旋转（度）</translation>
    </message>
    <message>
        <source>Random rotation range.</source>
        <translation>随机旋转范围。</translation>
    </message>
    <message>
        <source>Helps when objects appear rotated.</source>
        <translation>目标可能旋转出现时有帮助。</translation>
    </message>
    <message>
        <source>Translation</source>
        <translation>平移</translation>
    </message>
    <message>
        <source>Random shift as a fraction of the image size.</source>
        <translation>随机平移，以图像尺寸的比例表示。</translation>
    </message>
    <message>
        <source>Robustness to object position.</source>
        <translation>对目标位置更稳健。</translation>
    </message>
    <message>
        <source>Scale gain</source>
        <translation>缩放增益</translation>
    </message>
    <message>
        <source>Random zoom range.</source>
        <translation>随机缩放范围。</translation>
    </message>
    <message>
        <source>Robustness to object size.</source>
        <translation>对目标大小更稳健。</translation>
    </message>
    <message>
        <source>Shear (degrees)</source>
        <translation>剪切（度）</translation>
    </message>
    <message>
        <source>Random shear range.</source>
        <translation>随机剪切范围。</translation>
    </message>
    <message>
        <source>Helps with perspective variety.</source>
        <translation>有助于应对视角变化。</translation>
    </message>
    <message>
        <source>Perspective</source>
        <translation>透视</translation>
    </message>
    <message>
        <source>Random perspective distortion.</source>
        <translation>随机透视变形。</translation>
    </message>
    <message>
        <source>Helps with camera angles.</source>
        <translation>有助于应对不同的拍摄角度。</translation>
    </message>
    <message>
        <source>Vertical flip</source>
        <translation>垂直翻转</translation>
    </message>
    <message>
        <source>Probability of an upside-down flip.</source>
        <translation>上下翻转的概率。</translation>
    </message>
    <message>
        <source>Only useful when objects can appear upside down.</source>
        <translation>只在目标可能倒置出现时有用。</translation>
    </message>
    <message>
        <source>Horizontal flip</source>
        <translation>水平翻转</translation>
    </message>
    <message>
        <source>Probability of a mirror flip.</source>
        <translation>镜像翻转的概率。</translation>
    </message>
    <message>
        <source>Usually helps; not for text or left/right classes.</source>
        <translation>通常有帮助；不适用于文字或区分左右的类别。</translation>
    </message>
    <message>
        <source>Mosaic</source>
        <translation>马赛克</translation>
    </message>
    <message>
        <source>Probability of combining four images into one.</source>
        <translation>把四张图像拼成一张的概率。</translation>
    </message>
    <message>
        <source>Mosaic images cost more loader time.</source>
        <translation>马赛克图像需要更多加载时间。</translation>
    </message>
    <message>
        <source>Strong gain on small data sets; more objects per image.</source>
        <translation>对小数据集提升明显；每张图像目标更多。</translation>
    </message>
    <message>
        <source>Mixup</source>
        <translation>混合（Mixup）</translation>
    </message>
    <message>
        <source>Probability of blending two images.</source>
        <translation>把两张图像混合的概率。</translation>
    </message>
    <message>
        <source>Helps larger models; can hurt small ones.</source>
        <translation>对大模型有帮助；可能损害小模型。</translation>
    </message>
    <message>
        <source>Close mosaic (last epochs)</source>
        <translation>关闭马赛克（最后几轮）</translation>
    </message>
    <message>
        <source>Turn mosaic off for this many final epochs.</source>
        <translation>在最后这么多轮中关闭马赛克。</translation>
    </message>
    <message>
        <source>Ends training on realistic images; usually better mAP.</source>
        <translation>用真实的图像结束训练；通常 mAP 更好。</translation>
    </message>
    <message>
        <source>Rectangular batches</source>
        <translation>矩形批次</translation>
    </message>
    <message>
        <source>Batch images of similar aspect ratio with less padding.</source>
        <translation>把宽高比相近的图像组成一批，减少填充。</translation>
    </message>
    <message>
        <source>Less padding, slightly less memory.</source>
        <translation>填充更少，显存略少。</translation>
    </message>
    <message>
        <source>Slightly faster.</source>
        <translation>略快。</translation>
    </message>
    <message>
        <source>Not compatible with mosaic; may lower mAP in training.</source>
        <translation>与马赛克不兼容；训练时可能降低 mAP。</translation>
    </message>
    <message>
        <source>Validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>Validate each epoch</source>
        <translation>每轮验证</translation>
    </message>
    <message>
        <source>Compute mAP on the validation set after each epoch.</source>
        <translation>每轮结束后在验证集上计算 mAP。</translation>
    </message>
    <message>
        <source>Validation has its own peak; it can run out of memory too.</source>
        <translation>验证有自己的峰值，同样可能显存不足。</translation>
    </message>
    <message>
        <source>Adds the validation time to each epoch.</source>
        <translation>每轮增加验证所需时间。</translation>
    </message>
    <message>
        <source>Needed to pick the best weights.</source>
        <translation>挑选最佳权重需要它。</translation>
    </message>
    <message>
        <source>Confidence threshold</source>
        <translation>置信度阈值</translation>
    </message>
    <message>
        <source>Minimum score of a detection in validation.</source>
        <translation>验证中检测结果的最低分数。</translation>
    </message>
    <message>
        <source>Higher is faster (fewer boxes to match).</source>
        <translation>越高越快（需要匹配的框更少）。</translation>
    </message>
    <message>
        <source>Keep it low for a faithful mAP.</source>
        <translation>保持较低以得到可信的 mAP。</translation>
    </message>
    <message>
        <source>NMS IoU</source>
        <translation>NMS IoU</translation>
    </message>
    <message>
        <source>Overlap above which non-maximum suppression merges boxes.</source>
        <translation>非极大值抑制合并框的重叠阈值。</translation>
    </message>
    <message>
        <source>Lower merges more boxes.</source>
        <translation>越低合并的框越多。</translation>
    </message>
    <message>
        <source>Maximum detections</source>
        <translation>最大检测数</translation>
    </message>
    <message>
        <source>Detections kept per image in validation.</source>
        <translation>验证中每张图像保留的检测数。</translation>
    </message>
    <message>
        <source>Fewer is a little faster.</source>
        <translation>越少略快。</translation>
    </message>
    <message>
        <source>Too few lowers recall on crowded images.</source>
        <translation>太少会降低拥挤图像上的召回率。</translation>
    </message>
    <message>
        <source>Validation batch</source>
        <translation>验证批大小</translation>
    </message>
    <message>
        <source>Images per validation step.</source>
        <translation type="vanished">每个验证步骤的图像数。</translation>
    </message>
    <message>
        <source>Larger is faster.</source>
        <translation type="vanished">越大越快。</translation>
    </message>
    <message>
        <source>2 × batch</source>
        <translation type="vanished">2 × 批大小</translation>
    </message>
    <message>
        <source>Run folder</source>
        <translation>运行文件夹</translation>
    </message>
    <message>
        <source>Runs folder</source>
        <translation>运行文件夹</translation>
    </message>
    <message>
        <source>Folder that holds the runs.</source>
        <translation>存放运行记录的文件夹。</translation>
    </message>
    <message>
        <source>Run name</source>
        <translation>运行名称</translation>
    </message>
    <message>
        <source>Name of this run&apos;s folder; numbered when it exists.</source>
        <translation>本次运行的文件夹名；已存在时自动编号。</translation>
    </message>
    <message>
        <source>Reuse an existing folder</source>
        <translation>复用已有文件夹</translation>
    </message>
    <message>
        <source>Write into an existing run folder instead of numbering a new one.</source>
        <translation>写入已有的运行文件夹，而不是新建一个编号文件夹。</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续训练</translation>
    </message>
    <message>
        <source>Continue the named run from its last checkpoint.</source>
        <translation>从最后的检查点继续指定的运行。</translation>
    </message>
    <message>
        <source>Identical to an uninterrupted run.</source>
        <translation>与不中断的运行完全相同。</translation>
    </message>
    <message>
        <source>Seed</source>
        <translation>随机种子</translation>
    </message>
    <message>
        <source>Random seed for weights, shuffling and augmentation.</source>
        <translation>用于权重初始化、打乱顺序和数据增强的随机种子。</translation>
    </message>
    <message>
        <source>Different seeds give slightly different results.</source>
        <translation>不同的种子得到略有不同的结果。</translation>
    </message>
    <message>
        <source>Deterministic</source>
        <translation>确定性</translation>
    </message>
    <message>
        <source>Use deterministic kernels so a run can be repeated exactly.</source>
        <translation>使用确定性算子，使运行可以精确重现。</translation>
    </message>
    <message>
        <source>Can be slower on GPUs.</source>
        <translation>在 GPU 上可能更慢。</translation>
    </message>
    <message>
        <source>Save every N epochs</source>
        <translation>每 N 轮保存</translation>
    </message>
    <message>
        <source>Keep a checkpoint every N epochs besides last and best.</source>
        <translation>除最后和最佳检查点外，每 N 轮另存一个检查点。</translation>
    </message>
    <message>
        <source>Distributed</source>
        <translation>分布式</translation>
    </message>
    <message>
        <source>Processes</source>
        <translation>进程数</translation>
    </message>
    <message>
        <source>Data-parallel processes (one per device).</source>
        <translation>数据并行的进程数（每个设备一个）。</translation>
    </message>
    <message>
        <source>Each device holds a share of the batch.</source>
        <translation>每个设备承担批次的一部分。</translation>
    </message>
    <message>
        <source>Faster with more devices.</source>
        <translation>设备越多越快。</translation>
    </message>
    <message>
        <source>The same as one device with the same total batch.</source>
        <translation>与总批大小相同的单设备训练一致。</translation>
    </message>
    <message>
        <source>Shard optimizer state</source>
        <translation>分片优化器状态</translation>
    </message>
    <message>
        <source>1 = split the optimizer state across processes (ZeRO stage 1).</source>
        <translation>1 = 在进程间拆分优化器状态（ZeRO 第 1 阶段）。</translation>
    </message>
    <message>
        <source>Optimizer state per device divided by the number of processes.</source>
        <translation>每个设备上的优化器状态除以进程数。</translation>
    </message>
    <message>
        <source>A little communication overhead.</source>
        <translation>有少量通信开销。</translation>
    </message>
    <message>
        <source>Synchronised BatchNorm</source>
        <translation>同步 BatchNorm</translation>
    </message>
    <message>
        <source>Compute BatchNorm statistics over all processes.</source>
        <translation>在所有进程上统计 BatchNorm。</translation>
    </message>
    <message>
        <source>Slower: one extra exchange per layer.</source>
        <translation type="vanished">更慢：每层多一次数据交换。</translation>
    </message>
    <message>
        <source>Better with small per-device batches.</source>
        <translation>每个设备批次较小时效果更好。</translation>
    </message>
    <message>
        <source>Assigner boxes per slice</source>
        <translation>分配器每片的框数</translation>
    </message>
    <message>
        <source>How many labelled boxes the loss&apos;s label assignment compares with every anchor at once.</source>
        <translation>损失的标签分配一次将多少个标注框与每个锚点进行比较。</translation>
    </message>
    <message>
        <source>Lower needs less in the loss phase on images with many objects.</source>
        <translation>越低，在目标很多的图像上损失阶段所需显存越少。</translation>
    </message>
    <message>
        <source>Lower is a little slower (more, smaller passes).</source>
        <translation>越低略慢（更多、更小的批次处理）。</translation>
    </message>
    <message>
        <source>No effect: the targets are the same.</source>
        <translation>无影响：目标完全相同。</translation>
    </message>
    <message>
        <source>automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <source>Slower: each batch all-reduces twice per BatchNorm layer (its statistics in forward, its gradient sums in backward; once more in backward for layers that checkpointing recomputes) and twice more to close forward and backward, every message the size of the widest layer: 116 per batch for yolov8n&apos;s 57 BatchNorm layers.</source>
        <translation>更慢：每个批次对每个 BatchNorm 层做两次全归约（前向中的统计量、反向中的梯度和；被梯度检查点重算的层在反向中再多一次），另外还有两次用于结束前向和反向，每条消息的大小都等于最宽的层：yolov8n 有 57 个 BatchNorm 层，每批 116 次。</translation>
    </message>
    <message>
        <source>none, e.g. 10 or [0, 1, 2]</source>
        <translation>无，例如 10 或 [0, 1, 2]</translation>
    </message>
    <message>
        <source>The first N layers (a number), or a list of layer indices like [0, 1, 2], whose weights do not train.</source>
        <translation>不训练其权重的层：前 N 层（一个数字），或层索引列表，如 [0, 1, 2]。</translation>
    </message>
    <message>
        <source>Start is off until these settings are fixed: %1.</source>
        <translation type="vanished">修正这些设置之前无法开始：%1。</translation>
    </message>
    <message>
        <source>A .pt file from Headroom or Ultralytics (best.pt, yolov8n.pt) to start from instead of random weights; the run&apos;s log says how many tensors it transferred.</source>
        <translation>从 Headroom 或 Ultralytics 的 .pt 文件(best.pt、yolov8n.pt)开始训练,而不是随机权重;运行日志会说明迁移了多少个张量。</translation>
    </message>
    <message>
        <source>Images per validation step; 0 validates at the training batch, in the memory training already holds.</source>
        <translation>每个验证步骤的图像数；0 表示按训练批大小验证，使用训练已占用的内存。</translation>
    </message>
    <message>
        <source>Larger can be faster on a GPU, not on the CPU.</source>
        <translation>在 GPU 上越大可能越快，在 CPU 上不会。</translation>
    </message>
    <message>
        <source>same as batch</source>
        <translation>与批大小相同</translation>
    </message>
</context>
<context>
    <name>hr::ui::SettingsPage</name>
    <message>
        <source>Open YAML…</source>
        <translation>打开 YAML…</translation>
    </message>
    <message>
        <source>Save YAML…</source>
        <translation>保存 YAML…</translation>
    </message>
    <message>
        <source>Settings are kept between sessions. Hover a field to see what it does to memory, speed and accuracy.</source>
        <translation>设置会在会话之间保留。将鼠标悬停在字段上，可查看它对显存、速度和精度的影响。</translation>
    </message>
    <message>
        <source>Settings from %1</source>
        <translation>设置来自 %1</translation>
    </message>
    <message>
        <source>Settings saved to %1</source>
        <translation>设置已保存到 %1</translation>
    </message>
    <message>
        <source>Start is off until these settings are fixed: %1.</source>
        <translation>修正这些设置之前无法开始：%1。</translation>
    </message>
</context>
<context>
    <name>hr::ui::StrategyEditor</name>
    <message>
        <source>Strategy</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>What it changes</source>
        <translation>改动内容</translation>
    </message>
    <message>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <source>Defaults</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>The default matrix relative to the base batch B: native B; B/4 + accumulate 4; B/4 + AMP; B/8 + AMP + accumulate 8; B/4 + AMP + checkpointing</source>
        <translation>相对于基准批量 B 的默认矩阵：原生 B；B/4 + 累积 4；B/4 + AMP；B/8 + AMP + 累积 8；B/4 + AMP + 梯度检查点</translation>
    </message>
    <message>
        <source>Load…</source>
        <translation>加载…</translation>
    </message>
    <message>
        <source>Reads a strategies file (the one headroom-cli compare --strategies reads)</source>
        <translation>读取策略文件（即 headroom-cli compare --strategies 读取的文件）</translation>
    </message>
    <message>
        <source>Save…</source>
        <translation>保存…</translation>
    </message>
    <message>
        <source>Writes the list as a strategies file for headroom-cli compare --strategies</source>
        <translation>把列表写成供 headroom-cli compare --strategies 使用的策略文件</translation>
    </message>
    <message>
        <source>Part of the run folder&apos;s name: letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos;</source>
        <translation>运行文件夹名称的一部分：字母、数字、“-”、“_”和“.”</translation>
    </message>
    <message>
        <source>the base batch</source>
        <translation>基准批量</translation>
    </message>
    <message>
        <source>Images per step: a number, or relative to the base batch B: B, B/4, B*2. Empty keeps the base batch.</source>
        <translation>每步图像数：一个数字，或相对于基准批量 B：B、B/4、B*2。留空则保持基准批量。</translation>
    </message>
    <message>
        <source>not set</source>
        <translation>未设置</translation>
    </message>
    <message>
        <source>Batches per optimizer step, written as nbs = batch × accumulate. &quot;not set&quot; keeps the base settings&apos; nbs.</source>
        <translation>每次优化器更新的批次数，写作 nbs = 批量 × 累积。“未设置”保持基准设置的 nbs。</translation>
    </message>
    <message>
        <source>as the base settings</source>
        <translation>同基准设置</translation>
    </message>
    <message>
        <source>on</source>
        <translation>开</translation>
    </message>
    <message>
        <source>off</source>
        <translation>关</translation>
    </message>
    <message>
        <source>key=value, one a line, e.g. imgsz=320</source>
        <translation>key=value，每行一个，例如 imgsz=320</translation>
    </message>
    <message>
        <source>Any other setting, as on headroom-cli&apos;s command line: key=value, one a line. Values may use B.</source>
        <translation>其他任意设置，写法同 headroom-cli 命令行：key=value，每行一个。值可以使用 B。</translation>
    </message>
    <message>
        <source>made from the settings</source>
        <translation>由设置生成</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Batch</source>
        <translation>批量</translation>
    </message>
    <message>
        <source>Accumulate</source>
        <translation>累积</translation>
    </message>
    <message>
        <source>AMP</source>
        <translation>AMP</translation>
    </message>
    <message>
        <source>Checkpointing</source>
        <translation>梯度检查点</translation>
    </message>
    <message>
        <source>Other settings</source>
        <translation>其他设置</translation>
    </message>
    <message>
        <source>Description</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>Published</source>
        <translation>公开数据</translation>
    </message>
    <message>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <source>%1 min/epoch</source>
        <translation>每轮 %1 分钟</translation>
    </message>
    <message>
        <source>mAP50 %1</source>
        <translation>mAP50 %1</translation>
    </message>
    <message>
        <source>no published claim</source>
        <translation>无公开数据</translation>
    </message>
    <message>
        <source>a second strategy named &apos;%1&apos;</source>
        <translation>另一个同名策略“%1”</translation>
    </message>
    <message>
        <source>The default strategy matrix (relative to the base batch B).</source>
        <translation>默认策略矩阵（相对于基准批量 B）。</translation>
    </message>
    <message>
        <source>%1 was not loaded:
%2</source>
        <translation>%1 未加载：
%2</translation>
    </message>
    <message>
        <source>%1 was not loaded; the problems are under the list.</source>
        <translation>%1 未加载；问题列在列表下方。</translation>
    </message>
    <message>
        <source>Not saved: fix the strategies first.
%1</source>
        <translation>未保存：请先修正策略。
%1</translation>
    </message>
    <message>
        <source>Not saved: the strategies have problems (listed under the form).</source>
        <translation>未保存：策略有问题（列在表单下方）。</translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message>
        <source>Load strategies</source>
        <translation>加载策略</translation>
    </message>
    <message>
        <source>Strategies (*.yaml *.yml);;All files (*)</source>
        <translation>策略 (*.yaml *.yml);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Save strategies</source>
        <translation>保存策略</translation>
    </message>
    <message numerus="yes">
        <source>Loaded %n strategies from %1.</source>
        <translation>
            <numerusform>已从 %1 加载 %n 个策略。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Saved %n strategies to %1.</source>
        <translation>
            <numerusform>已将 %n 个策略保存到 %1。</numerusform>
        </translation>
    </message>
    <message>
        <source>backbone</source>
        <translation>骨干网络</translation>
    </message>
    <message>
        <source>all blocks</source>
        <translation>所有模块</translation>
    </message>
    <message>
        <source>published YOLOv9-c table, RTX-class GPU (design notes)</source>
        <translation>YOLOv9-c 公开数据表，RTX 级 GPU（设计笔记）</translation>
    </message>
    <message>
        <source>a strategy</source>
        <translation>某个策略</translation>
    </message>
    <message>
        <source>strategy &apos;%1&apos;</source>
        <translation>策略“%1”</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>the base settings</source>
        <translation>基础设置</translation>
    </message>
    <message>
        <source>native batch B</source>
        <translation>原生批大小 B</translation>
    </message>
    <message>
        <source>batch B/4 + accumulate 4</source>
        <translation>批大小 B/4 + 累积 4 步</translation>
    </message>
    <message>
        <source>batch B/4 + AMP</source>
        <translation>批大小 B/4 + AMP</translation>
    </message>
    <message>
        <source>batch B/8 + AMP + accumulate 8</source>
        <translation>批大小 B/8 + AMP + 累积 8 步</translation>
    </message>
    <message>
        <source>batch B/4 + AMP + checkpointing</source>
        <translation>批大小 B/4 + AMP + 检查点重计算</translation>
    </message>
</context>
<context>
    <name>hr::ui::TrainPage</name>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>空闲</translation>
    </message>
    <message>
        <source>No run yet. Press Start to train with the current settings.</source>
        <translation>还没有运行。按“开始”以当前设置训练。</translation>
    </message>
    <message>
        <source>Device memory</source>
        <translation>设备显存</translation>
    </message>
    <message>
        <source>seconds</source>
        <translation>秒</translation>
    </message>
    <message>
        <source>MiB</source>
        <translation>MiB</translation>
    </message>
    <message>
        <source>forward</source>
        <translation>前向</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>反向</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>优化器</translation>
    </message>
    <message>
        <source>validation</source>
        <translation>验证</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>Losses</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>epoch</source>
        <translation>轮</translation>
    </message>
    <message>
        <source>loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <source>box</source>
        <translation>框</translation>
    </message>
    <message>
        <source>cls</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>dfl</source>
        <translation>DFL</translation>
    </message>
    <message>
        <source>val box</source>
        <translation>验证 框</translation>
    </message>
    <message>
        <source>val cls</source>
        <translation>验证 类别</translation>
    </message>
    <message>
        <source>val dfl</source>
        <translation>验证 DFL</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>value</source>
        <translation>数值</translation>
    </message>
    <message>
        <source>mAP50</source>
        <translation>mAP50</translation>
    </message>
    <message>
        <source>mAP50-95</source>
        <translation>mAP50-95</translation>
    </message>
    <message>
        <source>precision</source>
        <translation>精确率</translation>
    </message>
    <message>
        <source>recall</source>
        <translation>召回率</translation>
    </message>
    <message>
        <source>Learning rate</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>lr</source>
        <translation>学习率</translation>
    </message>
    <message>
        <source>The run&apos;s log appears here.</source>
        <translation>运行日志显示在这里。</translation>
    </message>
    <message>
        <source>warning: </source>
        <translation>警告：</translation>
    </message>
    <message>
        <source>error: </source>
        <translation>错误：</translation>
    </message>
    <message>
        <source>budget %1</source>
        <translation>预算 %1</translation>
    </message>
    <message>
        <source>starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <source>Run %1 started: %2 parameters, batch %3, image size %4.</source>
        <translation>运行 %1 已开始：%2 个参数，批大小 %3，图像尺寸 %4。</translation>
    </message>
    <message>
        <source>epoch %1/%2 · batch %3/%4 · ETA %5</source>
        <translation>第 %1/%2 轮 · 第 %3/%4 批 · 剩余 %5</translation>
    </message>
    <message>
        <source>%1 images/s · box %2 · cls %3 · dfl %4</source>
        <translation>%1 张/秒 · 框 %2 · 类别 %3 · DFL %4</translation>
    </message>
    <message>
        <source>epoch %1/%2: mAP50 %3, mAP50-95 %4, precision %5, recall %6, peak %7, %8%9</source>
        <translation>第 %1/%2 轮：mAP50 %3，mAP50-95 %4，精确率 %5，召回率 %6，峰值 %7，%8%9</translation>
    </message>
    <message>
        <source> (best so far)</source>
        <translation>（目前最佳）</translation>
    </message>
    <message>
        <source>memory %1 · peak %2%3</source>
        <translation type="vanished">显存 %1 · 峰值 %2%3</translation>
    </message>
    <message>
        <source> of %1</source>
        <translation> / %1</translation>
    </message>
    <message>
        <source>finished</source>
        <translation type="vanished">已完成</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation type="vanished">已停止</translation>
    </message>
    <message>
        <source>stopped early (no improvement)</source>
        <translation type="vanished">已提前停止（无改进）</translation>
    </message>
    <message>
        <source>Run %1 %2 after %3 epochs: best mAP50 %4, mAP50-95 %5.</source>
        <translation>运行 %1 在 %3 轮后%2：最佳 mAP50 %4，mAP50-95 %5。</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>The run failed: %1</source>
        <translation>运行失败：%1</translation>
    </message>
    <message>
        <source>Fix applied at epoch %1, batch %2: %3 (predicted peak %4). Training continues.</source>
        <translation>在第 %1 轮第 %2 批应用了修复：%3（预测峰值 %4）。训练继续。</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>After the fix the measured peak is %1.</source>
        <translation>修复后实测峰值为 %1。</translation>
    </message>
    <message>
        <source>After the fix the measured peak is %1, predicted %2 (%3%).</source>
        <translation>修复后实测峰值为 %1，预测为 %2（%3%）。</translation>
    </message>
    <message>
        <source>rank 0 allocated</source>
        <translation>0 号进程已分配</translation>
    </message>
    <message>
        <source>rank 0 peak</source>
        <translation>0 号进程峰值</translation>
    </message>
    <message>
        <source>Data parallel over %1 processes on this machine: batch %2 in total, %3 per process; this window trains as rank 0, the others are headroom-cli workers; the memory plot has one curve per rank.</source>
        <translation>在本机上以 %1 个进程进行数据并行：总批大小 %2，每个进程 %3；本窗口作为 0 号进程训练，其余为 headroom-cli 工作进程；显存图中每个进程一条曲线。</translation>
    </message>
    <message>
        <source>rank %1 allocated</source>
        <translation>%1 号进程已分配</translation>
    </message>
    <message>
        <source>advisor&apos;s probe steps</source>
        <translation>顾问的探测步骤</translation>
    </message>
    <message>
        <source>probe step memory</source>
        <translation>探测步骤内存</translation>
    </message>
    <message>
        <source>advisor probing a fix · training peak %1%2</source>
        <translation>顾问正在探测修复 · 训练峰值 %1%2</translation>
    </message>
    <message>
        <source>memory %1 · training peak %2%3</source>
        <translation>内存 %1 · 训练峰值 %2%3</translation>
    </message>
    <message>
        <source>out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <source>finished early (no improvement)</source>
        <translation>提前结束（没有改进）</translation>
    </message>
    <message>
        <source>Run %1 %2: %3</source>
        <translation>运行 %1 %2：%3</translation>
    </message>
    <message>
        <source>Run %1 %2 after %3 epochs.</source>
        <translation>运行 %1 在 %3 轮后%2。</translation>
    </message>
    <message>
        <source>stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>Stopping after the current step…</source>
        <translation>将在当前步骤后停止…</translation>
    </message>
    <message>
        <source>waiting for your choice</source>
        <translation>等待您的选择</translation>
    </message>
    <message>
        <source>waiting for your choice · training peak %1%2</source>
        <translation>等待您的选择 · 训练峰值 %1%2</translation>
    </message>
    <message numerus="yes">
        <source>After the fix an image takes %1 ms (over %n step(s)).</source>
        <translation>
            <numerusform>应用修复后每张图像耗时 %1 毫秒（共 %n 步）。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>After the fix an image takes %1 ms, predicted %2 ms (%3%, over %n step(s)).</source>
        <translation>
            <numerusform>应用修复后每张图像耗时 %1 毫秒，预测 %2 毫秒（%3%，共 %n 步）。</numerusform>
        </translation>
    </message>
    <message>
        <source>Starting: waiting for any memory calibration to finish, then reading the data set and building the model…</source>
        <translation>正在开始：先等待内存校准完成，然后读取数据集并构建模型…</translation>
    </message>
    <message>
        <source>Out of memory in the %1 at epoch %2, batch %3: %4 requested with %5 allocated.</source>
        <translation>第 %2 轮第 %3 批在%1时显存不足：已分配 %5，请求 %4。</translation>
    </message>
    <message>
        <source>The run %1: %2</source>
        <translation>训练%1：%2</translation>
    </message>
    <message>
        <source>Run %1 %2 before its first epoch ended: no validation ran, so there is no mAP yet.</source>
        <translation>运行 %1 在第一轮结束前%2：尚未进行验证，因此还没有 mAP。</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>已暂停</translation>
    </message>
    <message>
        <source>Paused: training waits after the current step. Press Pause (F6) again to continue.</source>
        <translation>已暂停：当前一步结束后训练等待。再按一次暂停 (F6) 继续。</translation>
    </message>
    <message>
        <source>Resumed: training continues.</source>
        <translation>已恢复：训练继续。</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>What the last validation found: the per-class table, the confusion matrix and the curves, on the Runs page.</source>
        <translation>最近一次验证的结果：按类别的表格、混淆矩阵和曲线，显示在“运行”页。</translation>
    </message>
</context>
<context>
    <name>hr::ui::TrainingSession</name>
    <message>
        <source>%1 lines of the network library&apos;s log (c10d, Gloo) are in %2.</source>
        <translation>网络库日志（c10d、Gloo）的 %1 行在 %2 中。</translation>
    </message>
    <message>
        <source>Out of memory again: applying the best fix, %1</source>
        <translation>再次显存不足：应用最佳修复，%1</translation>
    </message>
    <message>
        <source>rank %1 is still running %2 s after rank 0 ended; terminating it</source>
        <translation>0 号进程结束 %2 秒后，%1 号进程仍在运行；正在终止它</translation>
    </message>
    <message>
        <source>Pause is not available in a data-parallel run: while rank 0 pauses, the other %1 processes wait in a collective and give up after its timeout. Stop ends every rank at the same step.</source>
        <translation>数据并行运行不能暂停：0 号进程暂停时，其余 %1 个进程会在集合通信中等待，并在超时后放弃。“停止”会让所有进程在同一步结束。</translation>
    </message>
    <message>
        <source>Cannot start the data-parallel run: %1</source>
        <translation>无法启动数据并行运行：%1</translation>
    </message>
    <message>
        <source>the worker program %1 does not exist or is not executable (set HEADROOM_CLI to the path of headroom-cli)</source>
        <translation>工作进程程序 %1 不存在或不可执行（请将 HEADROOM_CLI 设为 headroom-cli 的路径）</translation>
    </message>
    <message>
        <source>no free TCP port on the loopback interface for the rendezvous</source>
        <translation>回环接口上没有可用于会合的空闲 TCP 端口</translation>
    </message>
    <message>
        <source>cannot write the workers&apos; settings file: %1</source>
        <translation>无法写入工作进程的设置文件：%1</translation>
    </message>
    <message>
        <source>rank %1 (%2) did not start: %3</source>
        <translation>%1 号进程（%2）未能启动：%3</translation>
    </message>
    <message>
        <source>Started ranks 1-%1 as %2 (rendezvous on 127.0.0.1:%3).</source>
        <translation>已用 %2 启动 1-%1 号进程（会合地址 127.0.0.1:%3）。</translation>
    </message>
    <message>
        <source>could not start (%1)</source>
        <translation>未能启动（%1）</translation>
    </message>
    <message>
        <source>crashed (ended by a signal)</source>
        <translation>崩溃（被信号终止）</translation>
    </message>
    <message>
        <source>exited with status %1</source>
        <translation>以状态 %1 退出</translation>
    </message>
    <message>
        <source>rank %1 %2</source>
        <translation type="vanished">%1 号进程%2</translation>
    </message>
    <message>
        <source>Rank %1 %2 before the run ended, so the run cannot go on; the other ranks were stopped.</source>
        <translation>%1 号进程在运行结束前%2，运行无法继续；其余进程已被停止。</translation>
    </message>
    <message>
        <source>It wrote nothing.</source>
        <translation>它没有任何输出。</translation>
    </message>
    <message>
        <source>The end of its output:</source>
        <translation type="vanished">其输出的末尾：</translation>
    </message>
    <message>
        <source>Fix what it says and start again; Resume continues from the last finished epoch.</source>
        <translation>请按输出所述修正问题后重新开始；“继续训练”会从最后完成的一轮接着训练。</translation>
    </message>
    <message>
        <source>The raw output of rank %1 (the program&apos;s own words, not translated):</source>
        <translation>%1 号进程的原始输出（程序自己的原话，未翻译）：</translation>
    </message>
    <message>
        <source>Rank %1 %2.</source>
        <translation>%1 号进程%2。</translation>
    </message>
    <message>
        <source>Its last output is below.</source>
        <translation>其最后的输出见下方。</translation>
    </message>
    <message>
        <source>The end of its output is in the log, marked as its raw output.</source>
        <translation>其输出的末尾在日志中，标为原始输出。</translation>
    </message>
    <message>
        <source>Rank 0 stopped as well, as the run had already failed. Its own words (the program&apos;s, not translated):</source>
        <translation>运行已经失败，0 号进程也随之停止。它自己的原话（程序输出，未翻译）：</translation>
    </message>
</context>
</TS>
