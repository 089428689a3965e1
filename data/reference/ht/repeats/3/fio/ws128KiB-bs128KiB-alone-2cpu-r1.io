rchar: 107980631045
wchar: 18981
syscr: 824046
syscw: 5
read_bytes: 4096
write_bytes: 40960
cancelled_write_bytes: 0
