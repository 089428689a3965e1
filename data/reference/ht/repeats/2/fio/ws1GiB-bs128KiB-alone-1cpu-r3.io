rchar: 54000855982
wchar: 13664
syscr: 412213
syscw: 5
read_bytes: 1445888
write_bytes: 8192
cancelled_write_bytes: 0
