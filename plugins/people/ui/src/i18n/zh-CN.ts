import type en from './en';

type Translation<T> = { [K in keyof T]: T[K] extends string ? string : Translation<T[K]> };

/** 简体中文: the same keys as en.ts; the console fetches this chunk only when Chinese is chosen. */
const zhCN: Translation<typeof en> = {
  people: {
    menu: { group: '人员', persons: '人员列表', mine: '我的人员' },
    list: '列表',
    filter: '筛选人员',
    gender: '性别',
    any: '不限',
    exactName: '精确姓名',
    search: '搜索',
    newPerson: '新建人员',
    editPerson: '编辑人员',
    empty: '没有匹配的人员。',
    emptyMine: '你还没有人员。',
    emptyNone: '还没有人员。',
    emptyAsk: '有权管理人员的人可以添加第一个人员。',
    showAll: '显示所有人员',
    firstPerson: '添加第一个人员',
    name: '姓名',
    age: '年龄',
    actions: '操作',
    edit: '编辑',
    editOne: '编辑 {name}',
    statistics: '统计',
    total: '共 {n} 人。',
    byGender: '按性别统计的人员',
    saved: '已保存人员 {name}',
    created: '已创建人员 {name}',
    notGiven: '未填写',
    cancel: '取消',
    save: '保存',
    male: '男',
    female: '女',
  },
};

export default zhCN;
