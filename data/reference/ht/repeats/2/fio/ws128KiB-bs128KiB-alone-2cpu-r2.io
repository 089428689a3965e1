rchar: 146079067142
wchar: 18981
syscr: 1114715
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
