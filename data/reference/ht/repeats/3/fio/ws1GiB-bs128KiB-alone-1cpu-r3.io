rchar: 49335086030
wchar: 13658
syscr: 376615
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
