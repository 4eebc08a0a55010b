#include "toolsearch/expand.hpp"

#include "toolsearch/entities.hpp"
#include "toolsearch/stem.hpp"
#include "toolsearch/tokenize.hpp"

#include <map>
#include <utility>

namespace coffer::toolsearch {

namespace {

struct Entry {
    std::string_view from;
    std::string_view to;
};

// Chinese (and a little Japanese) words of tool vocabulary → English words.
constexpr Entry kCjk[] = {
    {"文件夹", "folder directory"}, {"文件", "file"}, {"目录", "directory"}, {"路径", "path"},
    {"读取", "read"}, {"写入", "write"}, {"创建", "create"}, {"新建", "create new"}, {"添加", "add"},
    {"删除", "delete"}, {"移除", "remove"}, {"更新", "update"}, {"修改", "update edit"}, {"编辑", "edit"},
    {"搜索", "search"}, {"查找", "search find"}, {"检索", "search"}, {"查询", "query search"},
    {"列出", "list"}, {"列表", "list"}, {"所有", "all"}, {"获取", "get"}, {"查看", "get view"},
    {"发送", "send"}, {"邮件", "email"}, {"消息", "message"}, {"频道", "channel"}, {"回复", "reply"},
    {"仓库", "repository"}, {"分支", "branch"}, {"提交", "commit"}, {"合并请求", "merge request"},
    {"拉取请求", "pull request"}, {"合并", "merge"}, {"问题", "issue"}, {"议题", "issue"}, {"工单", "issue ticket"},
    {"评论", "comment"}, {"标签", "label tag"}, {"任务", "task"}, {"项目", "project"},
    {"日历", "calendar"}, {"日程", "event calendar"}, {"事件", "event"}, {"会议", "meeting"},
    {"天气", "weather"}, {"预报", "forecast"}, {"时间", "time"}, {"时区", "timezone"}, {"日期", "date"},
    {"数据库", "database"}, {"表", "table"}, {"数据", "data"}, {"执行", "execute run"}, {"运行", "run"},
    {"网页", "web page"}, {"网站", "website"}, {"网络", "web"}, {"截图", "screenshot"}, {"浏览器", "browser"},
    {"点击", "click"}, {"打开", "open"}, {"下载", "download"}, {"上传", "upload"},
    {"容器", "container"}, {"镜像", "image"}, {"日志", "logs"}, {"集群", "cluster"}, {"部署", "deployment deploy"},
    {"命名空间", "namespace"}, {"服务", "service"}, {"重启", "restart"}, {"启动", "start"}, {"停止", "stop"},
    {"支付", "payment"}, {"付款", "payment"}, {"退款", "refund"}, {"客户", "customer"}, {"发票", "invoice"},
    {"订阅", "subscription"}, {"错误", "error"}, {"异常", "exception error"}, {"翻译", "translate"},
    {"地图", "map"}, {"路线", "route directions"}, {"导航", "directions"}, {"地址", "address"}, {"附近", "nearby 周边"},
    {"用户", "user"}, {"成员", "member"}, {"页面", "page"}, {"文档", "document"}, {"笔记", "note"},
    {"链接", "link url"}, {"记忆", "memory"}, {"实体", "entity"}, {"关系", "relation"}, {"知识", "knowledge"},
    {"图片", "image"}, {"图像", "image"}, {"照片", "photo image"}, {"视频", "video"}, {"新闻", "news"},
    {"股票", "stock"}, {"价格", "price"}, {"代码", "code"}, {"密钥", "secret key"}, {"存储桶", "bucket"},
    {"函数", "function"}, {"实例", "instance"}, {"通知", "notification"}, {"联系人", "contact"},
    {"ファイル", "file"}, {"メール", "email"}, {"カレンダー", "calendar"}, {"検索", "search"},
    {"削除", "delete"}, {"作成", "create"}, {"天気", "weather"},
    // Charts, processes, version control, maps and memory (added with the captured-server evaluation).
    {"图表", "chart"}, {"饼图", "pie chart"}, {"柱状图", "column bar chart"}, {"条形图", "bar chart"},
    {"折线图", "line chart"}, {"面积图", "area chart"}, {"散点图", "scatter chart"}, {"雷达图", "radar chart"},
    {"漏斗", "funnel"}, {"直方图", "histogram"}, {"词云", "word cloud"}, {"思维导图", "mind map"},
    {"流程图", "flow diagram"}, {"组织架构", "organization chart"}, {"树图", "treemap"}, {"桑基图", "sankey"},
    {"可视化", "visualize chart"}, {"画", "draw chart"}, {"趋势", "trend"}, {"比较", "compare"},
    {"进程", "process"}, {"终端", "terminal"}, {"命令", "command"}, {"结束", "terminate kill end"},
    {"压缩", "compress gzip"}, {"思考", "think thought"}, {"推理", "reasoning thought"}, {"大模型", "llm sampling"},
    {"模型", "model"}, {"计算", "calculate"}, {"求和", "sum"}, {"环境变量", "environment variables"},
    {"重命名", "rename move"}, {"推送", "push"}, {"拉取", "pull fetch"}, {"撤销", "undo reset"}, {"回滚", "rollback rollout"},
    {"克隆", "clone"}, {"差异", "diff differences"}, {"状态", "status"}, {"暂存", "stage stash"},
    {"谁写", "blame author"}, {"作者", "author"}, {"远程", "remote"}, {"本地", "local"},
    {"骑行", "bicycling"}, {"自行车", "bicycling"}, {"开车", "driving"}, {"驾车", "driving"}, {"步行", "walking"},
    {"公交", "transit"}, {"地铁", "transit subway"}, {"坐标", "coordinates"}, {"经纬度", "coordinates latitude longitude"},
    {"街", "street address"}, {"拥堵", "traffic congestion"}, {"堵", "traffic congestion"}, {"地点", "place location"},
    {"识别", "extract recognize"}, {"索引", "index"}, {"字段", "field"}, {"集合", "collection"},
    {"记住", "remember entity memory"}, {"记得", "remember memory"}, {"忘掉", "forget delete"}, {"忘记", "forget delete"},
    {"同事", "relation colleague"}, {"容器", "container pod"}, {"副本", "replicas"}, {"扩容", "scale"},
    {"网址", "url"}, {"截图", "screenshot"}, {"按钮", "button click"}, {"输入框", "input field fill"},
    {"论文", "papers"}, {"学术", "academic papers"}, {"爬取", "crawl"}, {"抓取", "scrape"},
    {"表情", "emoji reaction"}, {"回应", "reaction"}, {"数量", "count number"}, {"统计", "count statistics"},
};

// Abbreviations: the same thing, full weight.
constexpr Entry kAbbreviations[] = {
    {"repo", "repository"}, {"repos", "repository"}, {"db", "database"}, {"dbs", "database"},
    {"pr", "pull request"}, {"prs", "pull request"}, {"mr", "merge request"}, {"k8s", "kubernetes"},
    {"msg", "message"}, {"dir", "directory"}, {"env", "environment"}, {"config", "configuration"},
    {"auth", "authentication"}, {"dm", "direct message"}, {"tz", "timezone"}, {"img", "image"},
    {"doc", "document"}, {"info", "information"}, {"todo", "task"},
};

// Near-synonyms: half weight.
constexpr Entry kSynonyms[] = {
    {"folder", "directory"}, {"directory", "folder"}, {"ticket", "issue"}, {"bug", "issue"},
    {"mail", "email"}, {"email", "mail"}, {"remove", "delete"}, {"delete", "remove"}, {"erase", "delete"},
    {"find", "search"}, {"lookup", "search"}, {"look", "search"}, {"fetch", "get"}, {"retrieve", "get"},
    {"show", "get list"}, {"add", "create"}, {"make", "create"}, {"new", "create"}, {"edit", "update"},
    {"modify", "update"}, {"change", "update"}, {"send", "post"}, {"post", "send"}, {"run", "execute"},
    {"execute", "run"}, {"launch", "start"}, {"kill", "stop"}, {"terminate", "stop"}, {"picture", "image"},
    {"photo", "image"}, {"url", "link"}, {"link", "url"}, {"website", "web page"}, {"webpage", "web page"},
    {"meeting", "event"}, {"appointment", "event"}, {"schedule", "event calendar"}, {"many", "count"},
    {"history", "log"}, {"open", "navigate"}, {"visit", "navigate"}, {"browse", "navigate"},
    {"download", "fetch get"}, {"now", "current"}, {"rename", "move"}, {"remember", "memory"},
};

// What a named thing's type adds: a cue, below the request's own words.
constexpr float kEntityWeight = 0.5f;

using Table = std::map<std::string, std::vector<WeightedTerm>>;

void load(Table& t, const Entry* begin, const Entry* end, float weight) {
    for (auto* e = begin; e != end; ++e) {
        auto key = stem(std::string(e->from));
        for (auto& term : tokenize(e->to)) t[key].push_back({term, weight});
    }
}

const Table& english() {
    static const Table t = [] {
        Table t;
        load(t, std::begin(kAbbreviations), std::end(kAbbreviations), 1.0f);
        load(t, std::begin(kSynonyms), std::end(kSynonyms), 0.5f);
        return t;
    }();
    return t;
}

const std::vector<std::pair<std::string_view, std::vector<std::string>>>& cjk() {
    static const auto t = [] {
        std::vector<std::pair<std::string_view, std::vector<std::string>>> t;
        for (auto& e : kCjk) t.emplace_back(e.from, tokenize(e.to));
        return t;
    }();
    return t;
}

}  // namespace

std::vector<WeightedTerm> expand(std::string_view query, const std::vector<std::string>& query_terms) {
    std::vector<WeightedTerm> out;
    bool has_high = false;
    for (unsigned char c : query) has_high |= c >= 0x80;
    if (has_high) {
        // Longest entries first would matter only for overlaps like 文件夹/文件; both apply, which is fine.
        for (auto& [word, terms] : cjk())
            if (query.find(word) != std::string_view::npos)
                for (auto& t : terms) out.push_back({t, 1.0f});
    }
    for (auto& t : entity_terms(query)) out.push_back({t, kEntityWeight});
    auto& table = english();
    for (auto& q : query_terms)
        if (auto it = table.find(q); it != table.end())
            for (auto& t : it->second) out.push_back(t);
    return out;
}

}  // namespace coffer::toolsearch
