rchar: 181453040685
wchar: 18989
syscr: 1384615
syscw: 5
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
