rchar: 65483549615
wchar: 13665
syscr: 3997012
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
