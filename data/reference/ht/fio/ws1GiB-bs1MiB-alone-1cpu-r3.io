rchar: 12363869172
wchar: 13656
syscr: 12011
syscw: 5
read_bytes: 241664
write_bytes: 24576
cancelled_write_bytes: 0
