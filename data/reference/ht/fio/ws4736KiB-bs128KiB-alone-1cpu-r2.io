rchar: 44190337489
wchar: 5974
syscr: 337335
syscw: 3
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
