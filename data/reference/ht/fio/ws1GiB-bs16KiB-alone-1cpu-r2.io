rchar: 36957957035
wchar: 13662
syscr: 2255948
syscw: 5
read_bytes: 135168
write_bytes: 8192
cancelled_write_bytes: 0
