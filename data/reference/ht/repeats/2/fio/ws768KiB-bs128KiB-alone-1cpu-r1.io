rchar: 84078603198
wchar: 13665
syscr: 641687
syscw: 5
read_bytes: 94208
write_bytes: 8192
cancelled_write_bytes: 0
