import type en from './en-live.js';
import type { Translation } from './index.js';

/** 简体中文: the live console's features (en-live.ts's keys). */
const zhCNLive: Translation<typeof en> = {
  audit: {
    menu: '审计日志',
    title: '审计日志',
    filters: '筛选审计事件',
    user: '用户',
    verb: '操作',
    resource: '资源',
    name: '名称',
    since: '起始时间（UTC）',
    until: '截止时间（UTC）',
    search: '搜索',
    clear: '清除',
    caption: '审计事件，最新的在前（第 {page} 页）',
    time: '时间',
    code: '状态码',
    empty: '没有匹配的事件。请清除筛选条件或扩大时间范围。',
    pages: '审计日志分页',
    previous: '上一页',
    next: '下一页',
  },
  search: {
    open: '搜索（Ctrl+K）',
    title: '搜索',
    label: '搜索页面和对象',
    placeholder: '页面名称，或对象的完整名称',
    results: '结果',
    page: '页面',
    none: '没有找到与“{words}”相关的内容。',
    hint: '按 Ctrl+K 或 ⌘K 打开搜索；用 ↑ ↓ 选择，按 Enter 打开。',
  },
  dashboard: {
    title: '仪表盘',
    counts: '你可查看的对象',
    recent: '最近的变更',
    pluginHealth: '插件状态',
    noModels: '还没有你可列出的模型。请向管理员申请可列出模型的角色。',
    noRecent: '还没有创建任何对象。可在“资源”中或通过 API 创建。',
    noPlugins: '尚未安装插件。可在“插件”页面安装。',
    pending: '等待中',
  },
  editing: {
    pickRole:
      '请至少勾选一个角色：令牌只以此处勾选的角色行事，没有角色的令牌只能做任何已登录用户都能做的事（读取公开 API 和自己的资料）。',
    postsEmpty: '还没有文章。点击“新建文章”写第一篇。',
  },
};

export default zhCNLive;
