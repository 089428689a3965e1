rchar: 74314001514
wchar: 13666
syscr: 567208
syscw: 5
read_bytes: 241664
write_bytes: 8192
cancelled_write_bytes: 0
