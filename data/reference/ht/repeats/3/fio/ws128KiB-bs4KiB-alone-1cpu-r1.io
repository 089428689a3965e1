rchar: 26388155373
wchar: 13665
syscr: 6442615
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
